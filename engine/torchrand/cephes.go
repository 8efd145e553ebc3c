package torchrand

import "math"

// float32 log and sincos exactly as avx_mathfun.h (log256_ps, sincos256_ps: Julien
// Pommier's Cephes-derived SIMD code), which torch's AVX2 CPU kernel uses for randn. The
// AVX2 build is compiled with FMA contraction: every product whose single use is an
// addition or subtraction becomes one fused multiply-add (GCC's widening_mul pass, in
// statement order). fma32 reproduces those; every other product is rounded explicitly.

const (
	cephesSQRTHF = float32(0.707106781186547524)
	logP0        = float32(7.0376836292e-2)
	logP1        = float32(-1.1514610310e-1)
	logP2        = float32(1.1676998740e-1)
	logP3        = float32(-1.2420140846e-1)
	logP4        = float32(+1.4249322787e-1)
	logP5        = float32(-1.6668057665e-1)
	logP6        = float32(+2.0000714765e-1)
	logP7        = float32(-2.4999993993e-1)
	logP8        = float32(+3.3333331174e-1)
	logQ1        = float32(-2.12194440e-4)
	logQ2        = float32(0.693359375)

	minusDP1   = float32(-0.78515625)
	minusDP2   = float32(-2.4187564849853515625e-4)
	minusDP3   = float32(-3.77489497744594108e-8)
	sincofP0   = float32(-1.9515295891e-4)
	sincofP1   = float32(8.3321608736e-3)
	sincofP2   = float32(-1.6666654611e-1)
	coscofP0   = float32(2.443315711809948e-005)
	coscofP1   = float32(-1.388731625493765e-003)
	coscofP2   = float32(4.166664568298827e-002)
	cephesFOPI = float32(1.27323954473516) // 4/π
)

// fma32 is a correctly rounded float32 fused multiply-add a·b+c.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact: 24+24 bits
	cf := float64(c)
	s := p + cf
	// TwoSum: s + e == p + c exactly.
	bv := s - p
	e := (p - (s - bv)) + (cf - bv)
	r := float32(s)
	if e == 0 || float64(r) == s {
		return r
	}
	// s is inexact and not a float32: only a tie at float32 precision can round wrongly.
	var other float32
	if s > float64(r) {
		other = math.Nextafter32(r, float32(math.Inf(1)))
	} else {
		other = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if mid := (float64(r) + float64(other)) / 2; s == mid {
		// The exact value lies beyond the midpoint when e points away from r.
		if (s > float64(r)) == (e > 0) {
			return other
		}
	}
	return r
}

// log32 is log256_ps for one lane. x must be positive (the randn caller guarantees
// 0 < x <= 1).
func log32(x float32) float32 {
	const minNormPos = 0x00800000
	bits := math.Float32bits(x)
	if bits < minNormPos { // max(x, smallest normal) for positive x
		bits = minNormPos
	}
	e := float32(int32(bits>>23)-0x7f) + 1
	x = math.Float32frombits(bits&^0x7f800000 | math.Float32bits(0.5))
	if x < cephesSQRTHF {
		e--
		x = (x - 1) + x
	} else {
		x -= 1
	}
	z := float32(x * x)

	y := fma32(logP0, x, logP1)
	y = fma32(y, x, logP2)
	y = fma32(y, x, logP3)
	y = fma32(y, x, logP4)
	y = fma32(y, x, logP5)
	y = fma32(y, x, logP6)
	y = fma32(y, x, logP7)
	y = fma32(y, x, logP8)
	y = float32(y * x)

	y = fma32(y, z, float32(e*logQ1)) // y·z + e·q1: the first product is contracted
	y = fma32(-z, 0.5, y)             // y − z·0.5
	return fma32(e, logQ2, x+y)       // (x + y) + e·q2
}

// sincos32 is sincos256_ps for one lane.
func sincos32(x float32) (sin, cos float32) {
	signSin := math.Float32bits(x) & 0x80000000
	x = float32(math.Abs(float64(x)))
	j := int32(float32(x * cephesFOPI)) // cvttps: truncation
	j = (j + 1) &^ 1
	y := float32(j)

	swapSignSin := uint32(j&4) << 29
	polyMask := j&2 == 0
	x = fma32(y, minusDP1, x)
	x = fma32(y, minusDP2, x)
	x = fma32(y, minusDP3, x)

	signCos := uint32(^(j-2)&4) << 29
	signSin ^= swapSignSin

	z := float32(x * x)
	yc := fma32(coscofP0, z, coscofP1)
	yc = fma32(yc, z, coscofP2)
	yc = float32(yc * z)
	yc = fma32(yc, z, -float32(z*0.5)) // y·z − z·0.5: the earlier product is contracted
	yc += 1

	ys := fma32(sincofP0, z, sincofP1)
	ys = fma32(ys, z, sincofP2)
	ys = float32(ys * z)
	ys = fma32(ys, x, x)

	var s, c float32
	if polyMask {
		s, c = ys, yc
	} else {
		s, c = yc, ys
	}
	sin = math.Float32frombits(math.Float32bits(s) ^ signSin)
	cos = math.Float32frombits(math.Float32bits(c) ^ signCos)
	return sin, cos
}
