package cpu

import "math"

// expf is a float32 exp accurate to about 1 ulp (Cephes' expf polynomial on a range reduced to
// |r| ≤ ln2/2), several times faster than math.Exp, which dominated softmax and SiLU. It returns
// 0 below ln(smallest normal) (no subnormals), +Inf above ln(MaxFloat32) and NaN for NaN.
func expf(x float32) float32 {
	const (
		hi    = 88.72283905206835  // ln(MaxFloat32)
		lo    = -87.33654475055310 // ln(smallest normal float32)
		log2e = 1.44269504088896341
		ln2hi = 0.693359375
		ln2lo = -2.12194440e-4
	)
	if !(x >= lo) { // also NaN
		if x != x {
			return x
		}
		return 0
	}
	if x > hi {
		return float32(math.Inf(1))
	}
	// n = round(x/ln2) by the 1.5·2²³ trick (|x/ln2| < 2²²: adding the constant rounds to an
	// integer); r = x - n·ln2 in two steps so that r stays exact.
	const round = 12582912
	fn := x*log2e + round
	fn -= round
	r := x - fn*ln2hi - fn*ln2lo
	z := r * r
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	p = p*z + r + 1
	// Scale by 2^n. n reaches -126 or 128 near the limits, so split it to stay representable.
	n := int32(fn)
	if n < -125 || n > 127 {
		half := n / 2
		p *= math.Float32frombits(uint32(half+127) << 23)
		n -= half
	}
	return p * math.Float32frombits(uint32(n+127)<<23)
}
