package refmath

import (
	"math"
	"testing"
)

// TestRoundF16 checks RoundF16 on values whose float16 rounding is known: exact values,
// ties to even, subnormals, overflow and non-finite values.
func TestRoundF16(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, c := range []struct{ in, want float32 }{
		{1, 1}, {-2.5, -2.5}, {65504, 65504}, {65519, 65504}, {65520, inf}, {-70000, -inf},
		{1 + 0x1p-11, 1},            // a tie: to the even neighbour 1
		{1 + 3*0x1p-11, 1 + 0x1p-9}, // a tie: to the even neighbour 1 + 2^-9
		{1 + 0x1p-11 + 0x1p-20, 1 + 0x1p-10},
		{0x1p-24, 0x1p-24}, {0x1p-25, 0}, {0x1.8p-25, 0x1p-24}, {3 * 0x1p-25, 0x1p-23}, // subnormals, ties to even
		{0x1.002p-14, 0x1p-14}, {0x1.004p-14, 0x1.004p-14}, {1e-30, 0}, {inf, inf}, {-inf, -inf},
	} {
		if got := RoundF16(c.in); got != c.want {
			t.Errorf("RoundF16(%g) = %g, want %g", c.in, got, c.want)
		}
	}
	if v := RoundF16(float32(math.NaN())); v == v {
		t.Errorf("RoundF16(NaN) = %g", v)
	}
}

// TestRowShift checks the scale: the row's largest finite magnitude lands in [2^14, 2^15).
func TestRowShift(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		row  []float32
		want int
	}{
		{[]float32{1, -3}, 13}, {[]float32{1e6, 2}, -5}, {[]float32{0, 0}, 0}, {[]float32{nan, inf, 0.5}, 15},
		{[]float32{nan}, 0}, {[]float32{1e-40}, 100}, {[]float32{3e38}, -100},
	} {
		if got := RowShift(c.row); got != c.want {
			t.Errorf("RowShift(%v) = %d, want %d", c.row, got, c.want)
		}
	}
}
