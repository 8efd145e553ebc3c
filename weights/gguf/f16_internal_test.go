package gguf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/x448/float16"
)

// TestToF16: every binary16 value survives f16 -> float32 -> toF16, and random float32
// values round like x448/float16 (nearest even).
func TestToF16(t *testing.T) {
	for h := range 1 << 16 {
		f := f16(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := toF16(f); got != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, got)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		f := math.Float32frombits(r.Uint32())
		if math.IsNaN(float64(f)) {
			continue
		}
		if got, want := toF16(f), float16.Fromfloat32(f).Bits(); got != want {
			t.Fatalf("toF16(%v) = %#04x, want %#04x", f, got, want)
		}
	}
}
