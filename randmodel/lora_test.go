package randmodel

import (
	"math"
	"os"
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

// TestWriteAdapterRefusesAlpha: an alpha that is NaN, infinite or beyond float32 is refused
// before anything is written; it wrote an adapter with empty metadata, which generate then
// refused (issue 37 item 7).
func TestWriteAdapterRefusesAlpha(t *testing.T) {
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308} {
		if err := CheckAlpha(a); err == nil {
			t.Errorf("CheckAlpha(%v) accepted", a)
		}
		p := filepath.Join(t.TempDir(), "a.safetensors")
		err := WriteAdapter(p, Tiny, lora.RandomOptions{Rank: 2, Alpha: float32(a), Format: lora.FormatDiffusers})
		if err == nil {
			t.Errorf("alpha %v: written", a)
		}
		if _, serr := os.Stat(p); serr == nil {
			t.Errorf("alpha %v: file left", a)
		}
	}
	for _, a := range []float64{0, 1, 16, -4} {
		if err := CheckAlpha(a); err != nil {
			t.Errorf("CheckAlpha(%v): %v", a, err)
		}
	}
}
