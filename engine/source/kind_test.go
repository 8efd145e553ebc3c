package source

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestKind: every kind of model path, as the CLI, the app and OpenModelSource see it: a
// file, a diffusers folder (model_index.json wins over ComfyUI subfolders), a ComfyUI models
// folder and the ComfyUI folder above it, a folder of neither kind, and nothing.
func TestKind(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string, file bool) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if file {
			if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("comfy/models/diffusion_models", false)
	mk("old/unet", false)
	mk("both/model_index.json", true)
	mk("both/diffusion_models", false)
	for _, c := range []struct {
		path string
		want PathKind
	}{
		{mk("model.gguf", true), KindFile},
		{filepath.Join(dir, "both"), KindDiffusers},
		{filepath.Join(dir, "comfy"), KindComfy},
		{filepath.Join(dir, "comfy", "models"), KindComfy},
		{filepath.Join(dir, "old"), KindComfy},
		{mk("empty", false), KindFolder},
		{filepath.Join(dir, "none"), KindMissing},
	} {
		if got := Kind(c.path); got != c.want {
			t.Errorf("Kind(%s) = %d, want %d", c.path, got, c.want)
		}
	}
}

// TestRequiredFiles: the list download and Inspect share, a copy each call.
func TestRequiredFiles(t *testing.T) {
	r := RequiredFiles()
	for _, f := range []string{"model_index.json", "scheduler/scheduler_config.json", "tokenizer/tokenizer.json", "transformer/config.json", "text_encoder/config.json", "vae/config.json"} {
		if !slices.Contains(r, f) {
			t.Errorf("RequiredFiles lacks %s", f)
		}
	}
	r[0] = "changed"
	if RequiredFiles()[0] == "changed" {
		t.Error("RequiredFiles hands out its own list")
	}
	info, err := Inspect(t.TempDir())
	paths := make([]string, len(info.Problems))
	for i, p := range info.Problems {
		paths[i] = p.Path
	}
	if err != nil || !slices.Equal(paths[:len(requiredFiles)], requiredFiles) || info.Problems[len(requiredFiles)].Kind != MissingWeights {
		t.Errorf("an empty folder misses %v (%v), want the required files first, then the weights", info.Problems, err)
	}
}
