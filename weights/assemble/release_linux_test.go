package assemble_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kleinbild/weights/assemble"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
	"kleinbild/weights/remap"
)

// residentKB sums the Rss of this process's mappings of path (from /proc/self/smaps).
func residentKB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's header: "start-end perms offset dev inode [path]" (no path for an
		// anonymous one); the lines after it, up to the next header, describe it.
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			n, _ := strconv.Atoi(strings.Fields(line)[1])
			kb += n
		}
	}
	return kb
}

// TestReleaseDropsGGUFPages: a checkpoint assembled from a GGUF file gives its pages back
// on Release, as a mapped safetensors file does (they stayed resident: a GGUF text encoder
// then held its memory through denoising). The tensors stay readable afterwards.
func TestReleaseDropsGGUFPages(t *testing.T) {
	src := golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "te.gguf") // a private copy: only this test maps it
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := remap.TextEncoder(f.Names(), -1)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := assemble.FromGGUF(f, plan)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	touch := func() (sum byte) {
		for _, n := range ck.Names() {
			tn, _ := ck.Tensor(n)
			if q := tn.Quantized(); q != nil {
				for _, b := range q.Data {
					sum += b
				}
			}
		}
		return sum
	}
	before := touch()
	held := residentKB(t, path)
	if held < len(raw)/1024/2 {
		t.Fatalf("only %d KB of the %d KB file resident after reading it", held, len(raw)/1024)
	}
	ck.Release()
	// Most pages go (a few may be faulted back in by the kernel's read-around).
	if kb := residentKB(t, path); kb > held/4 {
		t.Errorf("%d of %d KB still resident after Release", kb, held)
	}
	if touch() != before {
		t.Error("the data changed after Release")
	}
}
