package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestUsageExitCodes: usage errors exit 2 before anything is loaded (issue 23 item 12:
// -s 201 and -s -1 exited 1 after loading, bench --sizes 0 exited 1, tokens without -p
// exited 0, --peak-reps had no bound). The model folder does not exist, so a command that
// went on to load it would exit 1.
func TestUsageExitCodes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o.png")
	missing := filepath.Join(t.TempDir(), "no-model")
	for _, args := range [][]string{
		{"generate", "-d", missing, "-p", "x", "-s", "201", "-o", out},
		{"generate", "-d", missing, "-p", "x", "-s", "-1", "-o", out},
		{"generate", "-d", missing, "-p", "x", "-s", "0", "-o", out},
		{"bench", "--model", missing, "--sizes", "0"},
		{"bench", "--model", missing, "--peak-reps", "1000000000"},
		{"tokens", "-d", missing},
	} {
		if code, _, errOut := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errOut)
		}
	}
}

// TestBadEnvBackend: an unknown $KLEINBILD_BACKEND is a usage error naming the variable, not
// silently replaced by the default (issue 23 item 11).
func TestBadEnvBackend(t *testing.T) {
	t.Setenv(backends.EnvBackend, "garbage")
	out := filepath.Join(t.TempDir(), "o.png")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-s", "1", "-q", "--no-cache", "-o", out)
	if code != 2 || !strings.Contains(errOut, backends.EnvBackend) || !strings.Contains(errOut, "garbage") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an image was written")
	}
}

// TestInputTensorShapes: --latents and --embeddings of the right element count but the
// wrong shape are refused with the expected shape named (issue 23 item 10: they passed).
func TestInputTensorShapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, tensor string, shape []int) string {
		n := 1
		for _, d := range shape {
			n *= d
		}
		p := filepath.Join(dir, name)
		if err := weights.WriteFile(p, []weights.OutTensor{{Name: tensor, Shape: shape, F32: make([]float32, n)}}, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "o.png")
	gen := []string{"generate", "-d", golden.TinyModel(t), "-p", "x", "-s", "1", "-q", "--no-cache", "-o", out}
	cases := []struct {
		flag, path, want string
	}{
		{"--latents", write("l1.safetensors", "latents", []int{1, 64, 4, 8}), "[1,128,H/16,W/16]"},
		{"--latents", write("l2.safetensors", "latents", []int{1, 128, 8, 4}), "[1 128 4 4]"},
		{"--embeddings", write("e1.safetensors", "prompt_embeds", []int{1, 96, 512}), "[1,512,3·hidden]"},
		{"--embeddings", write("e2.safetensors", "prompt_embeds", []int{96 * 512}), "[1,512,3·hidden]"},
	}
	for _, c := range cases {
		args := append(gen[:len(gen):len(gen)], c.flag, c.path)
		if c.path == filepath.Join(dir, "l2.safetensors") {
			args = append(args, "-W", "64", "-H", "64")
		}
		code, _, errOut := run(t, args...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d: %s (want the shape %s named)", c.flag, filepath.Base(c.path), code, errOut, c.want)
		}
	}
}
