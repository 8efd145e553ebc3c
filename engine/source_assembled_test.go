package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"kleinbild/weights/golden"
)

// assembledFolder builds the folder an assembled download writes (symlinks to golden files):
// transformer/ and text_encoder/ each holding one GGUF file, the tiny model's vae/ and
// tokenizer/, and with index also its model_index.json and scheduler/.
func assembledFolder(t *testing.T, index bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "klein-assembled")
	tiny := golden.TinyModel(t)
	links := map[string]string{
		"transformer/" + filepath.Base(q8mixFile): golden.Path(t, q8mixFile),
		"text_encoder/" + filepath.Base(teQ8File): golden.Path(t, teQ8File),
	}
	for _, rel := range []string{"vae/config.json", "vae/diffusion_pytorch_model.safetensors", "tokenizer/tokenizer.json", "tokenizer/tokenizer_config.json"} {
		links[rel] = filepath.Join(tiny, rel)
	}
	if index {
		links["model_index.json"] = filepath.Join(tiny, "model_index.json")
		links["scheduler/scheduler_config.json"] = filepath.Join(tiny, "scheduler/scheduler_config.json")
	}
	for rel, target := range links {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, dst); err != nil {
			t.Fatal(err)
		}
	}
	// A download's state folder inside a component folder is not a weight file.
	if err := os.MkdirAll(filepath.Join(dir, "transformer", ".kleinbild-download"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openAssembled opens assembledFolder(t, false) through OpenModelSource.
func openAssembled(t *testing.T) Source {
	src, err := OpenModelSource(assembledFolder(t, false), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestOpenAssembledFolder: a folder holding a GGUF transformer and text encoder with the
// official vae/ and tokenizer/ opens as one model (with or without model_index.json), its
// VAE and tokenizer from the folder; a folder with two transformer files or a config.json
// next to the file is not taken as assembled. The golden pipeline run is ggufCases' last case.
func TestOpenAssembledFolder(t *testing.T) {
	for _, index := range []bool{false, true} {
		dir := assembledFolder(t, index)
		src, err := OpenModelSource(dir, Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		info := src.Info()
		if !info.OK() || len(info.Files) != 2 || !info.Distilled || info.Dir != dir {
			t.Fatalf("index %v: %+v", index, info)
		}
		if fileOf(info, Transformer).Format != "gguf" || fileOf(info, TextEncoder).Naming != "llama.cpp" {
			t.Errorf("files: %+v", info.Files)
		}
		if src.Where(VAE) != filepath.Join(dir, "vae") {
			t.Errorf("VAE from %s", src.Where(VAE))
		}
		if cfg, err := src.VAEConfig(); err != nil || cfg.NormNumGroups != 8 {
			t.Errorf("VAE config from vae/config.json: %+v %v", cfg, err)
		}
		if tok, err := src.Tokenizer(); err != nil || len(tok.Encode("a red cube")) == 0 {
			t.Errorf("tokenizer: %v", err)
		}
		if tiny, _ := OpenFolder(golden.TinyModel(t)); index && !reflect.DeepEqual(info.Scheduler, tiny.Info().Scheduler) {
			t.Errorf("scheduler/scheduler_config.json not read: %+v", info.Scheduler)
		}
	}

	// --transformer still replaces the folder's file.
	dir := assembledFolder(t, false)
	over, err := OpenModelSource(dir, Overrides{Transformer: golden.Path(t, sdcppFile)})
	if err != nil || over.Where(Transformer) != golden.Path(t, sdcppFile) {
		t.Fatalf("override: %v", err)
	}

	// Two transformer files: not assembled; the folder reports what is missing as before.
	if err := os.Symlink(golden.Path(t, sdcppFile), filepath.Join(dir, "transformer", "other.gguf")); err != nil {
		t.Fatal(err)
	}
	two, err := OpenModelSource(dir, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(two.Info().Files, func(p PartFile) bool { return p.Component == Transformer }) || two.Info().OK() {
		t.Errorf("two transformer files taken: %+v", two.Info())
	}
	if got := FolderFiles(golden.TinyModel(t)); !got.Empty() {
		t.Errorf("the diffusers folder has component files: %+v", got)
	}
}
