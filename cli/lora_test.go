package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/lora"
	"kleinbild/weights/golden"
)

func TestParseLoRASpec(t *testing.T) {
	for _, c := range []struct {
		spec, path string
		strength   float32
		ok         bool
	}{
		{"a.safetensors", "a.safetensors", 1, true},
		{"a.safetensors:0.7", "a.safetensors", 0.7, true},
		{"a.safetensors:-0.5", "a.safetensors", -0.5, true},
		{`C:\loras\a.safetensors`, `C:\loras\a.safetensors`, 1, true},
		{`C:\loras\a.safetensors:2`, `C:\loras\a.safetensors`, 2, true},
		{"", "", 0, false},
		{":0.5", ":0.5", 1, true}, // a file named ":0.5"
		// A suffix that reads as a number is a strength, in range or refused (issue 30:
		// F:1e308 was a file name while F:1e3 was a strength).
		{"a.safetensors:1e308", "", 0, false},
		{"a.safetensors:1e3", "", 0, false},
		{"a.safetensors:1e999", "", 0, false},
		{"a.safetensors:NaN", "", 0, false},
		{"a.safetensors:-inf", "", 0, false},
		{"a.safetensors:4", "a.safetensors", 4, true},
		{"a.safetensors:1e-400", "a.safetensors", 0, true},
		{"a:b.safetensors", "a:b.safetensors", 1, true},
	} {
		p, s, err := parseLoRASpec(c.spec)
		if (err == nil) != c.ok || p != c.path || s != c.strength {
			t.Errorf("%q: %q %v %v, want %q %v ok=%v", c.spec, p, s, err, c.path, c.strength, c.ok)
		}
	}
}

// TestGenerateLoRA: generate with two adapters (one negative) writes a PNG whose metadata
// records both; info --lora describes a file and its fit; a strength out of range and a
// missing file are refused naming the problem.
func TestGenerateLoRA(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.png")
	a := golden.Path(t, "lora", "loras", "lora_diffusers_r4_a8.safetensors")
	k := golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors")
	code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "--no-cache", "-q",
		"--lora", a+":0.7", "--lora", k+":-0.5", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	meta, ok, err := imageio.ReadMetadata(out)
	if err != nil || !ok || len(meta.Adapters) != 2 || meta.Adapters[0].File != "lora_diffusers_r4_a8.safetensors" || meta.Adapters[1].Strength != -0.5 || len(meta.Adapters[0].SHA256) != 64 {
		t.Errorf("metadata adapters %+v (ok %v, %v)", meta.Adapters, ok, err)
	}
	code, stdout, errOut := run(t, "info", "--lora", k, "-d", golden.TinyModel(t))
	if code != 0 || !strings.Contains(stdout, "format:   kohya") || !strings.Contains(stdout, "rank:     2") || !strings.Contains(stdout, "model:    fits") {
		t.Errorf("info --lora: exit %d\n%s%s", code, stdout, errOut)
	}
	for _, c := range []struct{ spec, want string }{
		{k + ":9", "strength"},
		{filepath.Join(dir, "missing.safetensors"), "missing.safetensors"},
	} {
		code, _, errOut := run(t, "generate", "-d", golden.TinyModel(t), "-p", "x", "-s", "1", "--no-cache", "--lora", c.spec, "-o", filepath.Join(dir, "y.png"))
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("--lora %s: exit %d, %q", c.spec, code, errOut)
		}
	}
}

// TestRandModelLoRA: randmodel --lora writes a random adapter that info reads back.
func TestRandModelLoRA(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.safetensors")
	code, _, errOut := run(t, "randmodel", "--variant", "tiny", "--lora", path, "--lora-rank", "3", "--lora-format", "lycoris", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, stdout, errOut := run(t, "info", "--lora", path, "-d", golden.TinyModel(t))
	if code != 0 || !strings.Contains(stdout, "LoKr") || !strings.Contains(stdout, "model:    fits") {
		t.Errorf("info: exit %d\n%s%s", code, stdout, errOut)
	}
}

// TestRandModelLoRAKeepsFiles: randmodel --lora refuses a file that exists (a real adapter,
// a model's weights, a PNG) unless --force, and a device or folder even with it (issue 30
// item 4: it replaced them, exit 0, and wrote to /dev/null).
func TestRandModelLoRAKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "real.safetensors")
	if err := os.WriteFile(existing, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{existing, os.DevNull, dir} {
		code, _, errOut := run(t, "randmodel", "--variant", "tiny", "--lora", target, "--lora-rank", "2", "-q")
		if code != 2 || !strings.Contains(errOut, target) {
			t.Errorf("--lora %s: exit %d, %q", target, code, errOut)
		}
		if target != existing {
			if code, _, _ := run(t, "randmodel", "--variant", "tiny", "--lora", target, "--lora-rank", "2", "--force", "-q"); code == 0 {
				t.Errorf("--lora %s --force: exit 0", target)
			}
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "precious" {
		t.Fatalf("the existing file was replaced: %q", b)
	}
	if code, _, errOut := run(t, "randmodel", "--variant", "tiny", "--lora", existing, "--lora-rank", "2", "--force", "-q"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if _, err := lora.Open(existing); err != nil {
		t.Errorf("after --force: %v", err)
	}
}

// FuzzParseLoRASpec: any --lora value parses without panic to a file and a finite strength
// within ±lora.MaxStrength, or to an error.
func FuzzParseLoRASpec(f *testing.F) {
	for _, s := range []string{"a.safetensors", "a.safetensors:0.7", `C:\x:2`, ":0.5", "a:1e308", "a:nan", "a:0x1p-2", "a:1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, s, err := parseLoRASpec(spec)
		if err != nil {
			return
		}
		if p == "" || !(math.Abs(float64(s)) <= lora.MaxStrength) || !strings.HasPrefix(spec, p) {
			t.Fatalf("%q: file %q strength %v", spec, p, s)
		}
	})
}
