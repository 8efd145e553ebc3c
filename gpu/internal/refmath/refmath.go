// Package refmath holds the float64 reference helpers that the backend tests and the
// conformance suite (gpu/gputest) share: random bf16 weights, softmax, widening and NaN
// poison. It is test support; no kernel uses it.
package refmath

import (
	"math"
	"math/rand/v2"
)

// RandBF16 returns n bfloat16 values ~ N(0, std²) drawn from r, as bits and widened to
// float64.
func RandBF16(r *rand.Rand, n int, std float64) ([]uint16, []float64) {
	bits := make([]uint16, n)
	wide := make([]float64, n)
	for i := range bits {
		bits[i] = uint16(math.Float32bits(float32(std*r.NormFloat64())) >> 16)
		wide[i] = float64(math.Float32frombits(uint32(bits[i]) << 16))
	}
	return bits, wide
}

// NaNs returns n NaNs: poison for memory a kernel must overwrite or must not read.
func NaNs(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.NaN())
	}
	return x
}

// Widen returns x in float64.
func Widen(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// Softmax is the softmax of row in float64 (max-subtracted).
func Softmax(row []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = max(m, v)
	}
	out := make([]float64, len(row))
	var s float64
	for i, v := range row {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}
