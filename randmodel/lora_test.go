package randmodel

import (
	"path/filepath"
	"testing"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/weights/golden"
)

// TestWriteAdapterTiny: the tiny variant's random adapter covers every linear layer of the
// golden tiny transformer and fits it.
func TestWriteAdapterTiny(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.safetensors")
	if err := WriteAdapter(path, Tiny, lora.RandomOptions{Rank: 2, Format: lora.FormatKohya, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	a, err := lora.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := flux2.LoadConfig(filepath.Join(golden.TinyModel(t), "transformer", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	layers := lora.LayersOf(flux2.TensorSpecs(cfg))
	if err := a.Check(map[lora.Component]lora.Layers{lora.Transformer: layers}, false); err != nil {
		t.Fatal(err)
	}
	if s := a.Summary(); s.Transformer != len(layers) {
		t.Errorf("%d modules adapted, the model has %d", s.Transformer, len(layers))
	}
}
