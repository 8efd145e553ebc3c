package refmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHelpers(t *testing.T) {
	p := Softmax([]float64{1000, 1000, math.Inf(-1)}) // large values: max-subtracted
	if math.Abs(p[0]-0.5) > 1e-15 || math.Abs(p[1]-0.5) > 1e-15 || p[2] != 0 {
		t.Errorf("softmax %v", p)
	}
	bits, wide := RandBF16(rand.New(rand.NewPCG(1, 2)), 1000, 0.02)
	var s2 float64
	for i, b := range bits {
		if w := float64(math.Float32frombits(uint32(b) << 16)); w != wide[i] {
			t.Fatalf("value %d: bits give %v, widened %v", i, w, wide[i])
		}
		s2 += wide[i] * wide[i]
	}
	if std := math.Sqrt(s2 / 1000); std < 0.018 || std > 0.022 {
		t.Errorf("std %v, want about 0.02", std)
	}
	if x := NaNs(3); len(x) != 3 || !math.IsNaN(float64(x[2])) {
		t.Errorf("NaNs %v", x)
	}
	if w := Widen([]float32{1.5, -2}); w[0] != 1.5 || w[1] != -2 {
		t.Errorf("Widen %v", w)
	}
}
