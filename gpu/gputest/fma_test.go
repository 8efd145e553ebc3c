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

// TestULP32: WGSL's ulp is the spacing of float32 around x (the smaller one at a power of
// two), and the BatchNorm result an NVIDIA H200 gave (-1.5707967 for a correctly rounded
// -1.5707968: one ulp) is within WGSL's 2.5 ulp of a division, three ulp are not.
func TestULP32(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{1, 0x1p-24},
		{-1, 0x1p-24},
		{1.5, 0x1p-23},
		{1 + 0x1p-30, 0x1p-23},
		{3.0e-3, 0x1p-32},
	} {
		if got := ulp32(c.x); got != c.want {
			t.Errorf("ulp32(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	q := float64(float32(-1.5707968))
	one := math.Nextafter32(float32(q), 0)
	if off := ulpsOff(one, q); off != 1 || !(off <= divULPs) {
		t.Errorf("%v is %g ulp from %v: want 1, within %g", one, off, float32(q), divULPs)
	}
	three := math.Nextafter32(math.Nextafter32(one, 0), 0)
	if off := ulpsOff(three, q); off <= divULPs {
		t.Errorf("%v is %g ulp from %v: accepted within %g", three, off, float32(q), divULPs)
	}
	if off := ulpsOff(float32(math.NaN()), q); off <= divULPs {
		t.Error("NaN accepted")
	}
}
