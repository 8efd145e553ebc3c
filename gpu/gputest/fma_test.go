package gputest

import (
	"math"
	"testing"
)

// TestFMA32: the fused alternative checkMulAdd accepts is a different rounding from the
// unfused formula (so the check still pins one of exactly two results), and equal to the
// correctly rounded a·b + c.
func TestFMA32(t *testing.T) {
	a := float32(1 + math.Ldexp(1, -12))
	c := float32(-1)
	unfused := float32(a*a) + c
	fused := fma32(a, a, c)
	if want := float32(math.Ldexp(1, -11) + math.Ldexp(1, -24)); fused != want {
		t.Errorf("fma32 = %g, want %g", fused, want)
	}
	if fused == unfused {
		t.Errorf("fused and unfused agree (%g): the case does not tell them apart", fused)
	}
}
