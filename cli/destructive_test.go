package cli

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/internal/testfix"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// linkedModel makes a writable model folder: the small files copied, the weights linked to
// the tiny golden model.
func linkedModel(t *testing.T) string {
	t.Helper()
	src, dst := golden.TinyModel(t), filepath.Join(t.TempDir(), "model")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case fi.IsDir():
			return os.MkdirAll(to, 0o755)
		case strings.HasSuffix(p, ".safetensors"):
			abs, _ := filepath.Abs(p)
			return os.Symlink(abs, to)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestOutputNeverAnInput: generate -o and encode -o refuse, before loading anything, an
// output that is (after links) a model file, a reference or an input tensor, naming both
// paths; the file is left as it was (issue 23 item 1: each exited 0 and replaced it).
func TestOutputNeverAnInput(t *testing.T) {
	model := linkedModel(t)
	tmp := t.TempDir()
	ref := filepath.Join(tmp, "ref.png")
	testfix.SavePNG(t, ref, image.NewRGBA(image.Rect(0, 0, 64, 64)))
	lat := filepath.Join(tmp, "l.safetensors")
	if err := weights.WriteFile(lat, []weights.OutTensor{{Name: "latents", Shape: []int{1, 128, 4, 4}, F32: make([]float32, 128*16)}}, nil); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link.png")
	os.Symlink(filepath.Join(model, "vae", "config.json"), link)
	gen := []string{"generate", "-d", model, "-p", "x", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "-q", "--no-cache"}
	cases := []struct {
		name, victim string
		args         []string
	}{
		{"model index", filepath.Join(model, "model_index.json"), append(gen[:len(gen):len(gen)], "-o", filepath.Join(model, "model_index.json"))},
		{"link into model", filepath.Join(model, "vae", "config.json"), append(gen[:len(gen):len(gen)], "-o", link)},
		{"reference", ref, append(gen[:len(gen):len(gen)], "-i", ref, "-o", ref)},
		{"latents", lat, append(gen[:len(gen):len(gen)], "--latents", lat, "-o", lat)},
		{"mask", ref, []string{"generate", "-d", model, "-p", "x", "-s", "1", "-S", "1", "-q", "--no-cache", "--image", ref, "--mask", ref, "-o", ref}},
		{"replacing VAE file", lat, append(gen[:len(gen):len(gen)], "--vae", lat, "-o", lat)},
		{"adapter", lat, append(gen[:len(gen):len(gen)], "--lora", lat, "-o", lat)},
		{"encode over config", filepath.Join(model, "text_encoder", "config.json"),
			[]string{"encode", "-d", model, "-p", "x", "-q", "-o", filepath.Join(model, "text_encoder", "config.json")}},
	}
	for _, c := range cases {
		before, _ := os.ReadFile(c.victim)
		code, _, errOut := run(t, c.args...)
		after, _ := os.ReadFile(c.victim)
		if code != 1 || !strings.Contains(errOut, "reads") && !strings.Contains(errOut, "also an input") {
			t.Errorf("%s: exit %d, %s; want a refusal", c.name, code, errOut)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: %s was overwritten", c.name, c.victim)
		}
	}
}

// TestDumpNeverAnInput: --dump DIR refuses, before loading anything, a folder where a file it
// writes (image.png, NAME.safetensors) is a file the run reads, and a folder of a model (issue
// 30 item 5: it replaced a reference named image.png and a LoRA named image.safetensors, and
// added its files to a model's transformer/ folder).
func TestDumpNeverAnInput(t *testing.T) {
	model := linkedModel(t)
	tmp := t.TempDir()
	ref := filepath.Join(tmp, "image.png")
	testfix.SavePNG(t, ref, image.NewRGBA(image.Rect(0, 0, 64, 64)))
	other := t.TempDir()
	lat := filepath.Join(other, "latents_init.safetensors")
	if err := weights.WriteFile(lat, []weights.OutTensor{{Name: "latents", Shape: []int{1, 128, 4, 4}, F32: make([]float32, 128*16)}}, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.png")
	gen := []string{"generate", "-d", model, "-p", "x", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "-q", "--no-cache", "-o", out}
	cases := []struct {
		name, victim string
		args         []string
	}{
		{"reference", ref, append(gen[:len(gen):len(gen)], "-i", ref, "--dump", tmp)},
		{"mask", ref, []string{"generate", "-d", model, "-p", "x", "-s", "1", "-S", "1", "-q", "--no-cache", "--image", ref, "--mask", ref, "-o", out, "--dump", tmp}},
		{"latents", lat, append(gen[:len(gen):len(gen)], "--latents", lat, "--dump", other)},
		{"transformer folder", filepath.Join(model, "transformer", "config.json"), append(gen[:len(gen):len(gen)], "--dump", filepath.Join(model, "transformer"))},
		{"new folder in the model", filepath.Join(model, "model_index.json"), append(gen[:len(gen):len(gen)], "--dump", filepath.Join(model, "dump"))},
	}
	for _, c := range cases {
		before, _ := os.ReadFile(c.victim)
		code, _, errOut := run(t, c.args...)
		after, _ := os.ReadFile(c.victim)
		if code != 2 || !strings.Contains(errOut, "--dump") {
			t.Errorf("%s: exit %d, %s; want a refusal", c.name, code, errOut)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: %s was overwritten", c.name, c.victim)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the run went ahead", c.name)
		}
	}
	if _, err := os.Stat(filepath.Join(model, "dump")); err == nil {
		t.Error("a dump folder was made in the model folder")
	}
	dump := filepath.Join(t.TempDir(), "dump")
	if code, _, errOut := run(t, append(gen[:len(gen):len(gen)], "--dump", dump)...); code != 0 {
		t.Fatalf("a fresh dump folder: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dump, "image.png")); err != nil {
		t.Error(err)
	}
}

// TestEncodeWantsSafetensors: encode -o refuses a name other than .safetensors before any
// work, leaving an existing PNG as it was (issue 30 item 8: safetensors bytes replaced it).
func TestEncodeWantsSafetensors(t *testing.T) {
	pic := filepath.Join(t.TempDir(), "pic.png")
	os.WriteFile(pic, []byte("a picture"), 0o644)
	for _, out := range []string{pic, filepath.Join(t.TempDir(), "emb.bin")} {
		code, _, errOut := run(t, "encode", "-d", golden.TinyModel(t), "-p", "x", "-q", "-o", out)
		if code != 2 || !strings.Contains(errOut, ".safetensors") {
			t.Errorf("-o %s: exit %d, %s", out, code, errOut)
		}
	}
	if b, _ := os.ReadFile(pic); string(b) != "a picture" {
		t.Errorf("pic.png now holds %q", b[:min(len(b), 16)])
	}
	out := filepath.Join(t.TempDir(), "emb.SafeTensors")
	if code, _, errOut := run(t, "encode", "-d", golden.TinyModel(t), "-p", "x", "-q", "-o", out); code != 0 {
		t.Errorf("-o %s: exit %d, %s", out, code, errOut)
	}
}

// TestPromptRules: tokens and encode refuse a prompt longer than generate allows (issue 30:
// they accepted 65,537 bytes), and an empty prompt is warned about on stderr.
func TestPromptRules(t *testing.T) {
	tiny := golden.TinyModel(t)
	long := strings.Repeat("x", engine.MaxPromptBytes+1)
	out := filepath.Join(t.TempDir(), "e.safetensors")
	for _, args := range [][]string{{"tokens", "-d", tiny, "-p", long}, {"encode", "-d", tiny, "-p", long, "-o", out}} {
		if code, _, errOut := run(t, args...); code != 2 || !strings.Contains(errOut, "at most") {
			t.Errorf("%s with a long prompt: exit %d, %s", args[0], code, errOut)
		}
	}
	gen := filepath.Join(t.TempDir(), "g.png")
	for _, args := range [][]string{{"tokens", "-d", tiny, "-p", ""}, {"encode", "-d", tiny, "-p", " ", "-o", out},
		{"generate", "-d", tiny, "-p", "", "-W", "64", "-H", "64", "-s", "1", "-S", "1", "--no-cache", "-o", gen}} {
		if code, _, errOut := run(t, args...); code != 0 || !strings.Contains(errOut, "prompt is empty") {
			t.Errorf("%s with an empty prompt: exit %d, %q", args[0], code, errOut)
		}
	}
}
