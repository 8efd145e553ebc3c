package lora_test

import (
	"path/filepath"
	"slices"
	"testing"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/weights/golden"
)

// TestWriteRandom: a random adapter in each format covers every layer of the tiny transformer
// with the asked rank and fits it exactly.
func TestWriteRandom(t *testing.T) {
	cfg, err := flux2.LoadConfig(filepath.Join(golden.TinyModel(t), "transformer", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	layers := lora.LayersOf(flux2.TensorSpecs(cfg))
	for _, f := range []lora.Format{lora.FormatDiffusers, lora.FormatBFL, lora.FormatKohya, lora.FormatLyCORIS} {
		path := filepath.Join(t.TempDir(), "random.safetensors")
		if err := lora.WriteRandom(path, layers, lora.RandomOptions{Rank: 3, Alpha: 6, Format: f, Seed: 1}); err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		a, err := lora.Open(path)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		s := a.Summary()
		scale := float32(2) // alpha 6 / rank 3; BFL files carry no alpha
		if f == lora.FormatBFL {
			scale = 1
		}
		if a.Format != f || len(a.Terms) != len(layers) || !slices.Equal(s.Ranks, []int{3}) || a.Terms[0].Scale != scale {
			t.Errorf("%v: read back as %v with %d terms for %d layers, ranks %v, scale %v", f, a.Format, len(a.Terms), len(layers), s.Ranks, a.Terms[0].Scale)
		}
		if err := a.Check(map[lora.Component]lora.Layers{lora.Transformer: layers}, false); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
}
