package assemble_test

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights/assemble"
	"kleinbild/weights/golden"
	"kleinbild/weights/remap"
)

// sameConfig requires every key of got to have the tiny model's config.json value.
func sameConfig(t *testing.T, what string, got []byte, dir string) {
	t.Helper()
	raw, err := os.ReadFile(golden.TinyModel(t) + "/" + dir + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	var want, m map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		if !reflect.DeepEqual(v, want[k]) {
			t.Errorf("%s: config %s = %v, want %v", what, k, v, want[k])
		}
	}
}

// TestOpenComponents opens every single-file source of golden gguf/ (and the diffusers-named
// files ComfyUI also uses) and checks format, naming, storage types (the counts the golden
// README gives), the inferred config and the assembled tensor names.
func TestOpenComponents(t *testing.T) {
	type opener func(string) (*assemble.Component, error)
	te := func(p string) (*assemble.Component, error) { return assemble.OpenTextEncoder(p, 26) }
	vae := func(p string) (*assemble.Component, error) { return assemble.OpenVAE(p, 8) }
	cases := []struct {
		path, dir, format string
		open              opener
		naming            remap.Naming
		types             map[string]int
	}{
		{"gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "transformer", "gguf", assemble.OpenTransformer, remap.BFL,
			map[string]int{"BF16": 6, "F32": 12, "Q4_0": 4, "Q8_0": 19}},
		{"gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf", "transformer", "gguf", assemble.OpenTransformer, remap.BFL,
			map[string]int{"F16": 18, "Q4_K": 2, "Q8_0": 21}},
		{"gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors", "transformer", "safetensors", assemble.OpenTransformer, remap.BFL, nil},
		{"model/tiny-flux2-klein/transformer/diffusion_pytorch_model.safetensors", "transformer", "safetensors", assemble.OpenTransformer, remap.Diffusers, nil},
		{"gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf", "text_encoder", "gguf", te, remap.LlamaCpp, map[string]int{"F32": 113, "Q8_0": 197}},
		{"model/tiny-flux2-klein/text_encoder/model.safetensors", "text_encoder", "safetensors", te, remap.Diffusers, nil},
		{"gguf/model/comfyui/vae/flux2-ae-tiny.safetensors", "vae", "safetensors", vae, remap.BFL, nil},
		{"model/tiny-flux2-klein/vae/diffusion_pytorch_model.safetensors", "vae", "safetensors", vae, remap.Diffusers, nil},
	}
	for _, c := range cases {
		comp, err := c.open(golden.Path(t, c.path))
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if comp.Format != c.format || comp.Naming != c.naming {
			t.Errorf("%s: %s %s", c.path, comp.Format, comp.Naming)
		}
		if c.types != nil && !maps.Equal(comp.Types, c.types) {
			t.Errorf("%s: types %v, want %v", c.path, comp.Types, c.types)
		}
		sameConfig(t, c.path, comp.Config, c.dir)
		folder := open(t, golden.TinyModel(t)+"/"+c.dir)
		want := folder.Names()
		if c.dir == "text_encoder" {
			want = slices.DeleteFunc(want, func(n string) bool { return strings.HasPrefix(n, "model.layers.27.") })
		}
		if got := comp.Checkpoint.Names(); !slices.Equal(got, want) {
			t.Errorf("%s: %d tensors, want %d", c.path, len(got), len(want))
		}
		if err := comp.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := assemble.OpenTransformer(t.TempDir()); err == nil {
		t.Error("opened a folder")
	}
	// A text encoder is not a transformer, a transformer not a VAE.
	if _, err := assemble.OpenTransformer(golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")); err == nil {
		t.Error("text encoder opened as a transformer")
	}
	if _, err := assemble.OpenVAE(golden.Path(t, "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"), 0); err == nil {
		t.Error("transformer opened as a VAE")
	}
	if _, err := assemble.OpenTextEncoder(golden.Path(t, "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors"), -1); err == nil {
		t.Error("VAE opened as a text encoder")
	}
	if ok, err := assemble.IsGGUF(golden.Path(t, "gguf/dequant/Q8_0.safetensors")); ok || err != nil {
		t.Errorf("IsGGUF(safetensors) = %v, %v", ok, err)
	}
}
