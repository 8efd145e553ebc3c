package refmath

import "math"

// pow2 is 2^e as a float32, for e in [-126, 127].
func pow2(e int) float32 { return math.Float32frombits(uint32(e+127) << 23) }

// RoundF16 rounds v to the nearest float16 value, ties to even, as a float32: ±Inf beyond
// the float16 range, subnormals in steps of 2^-24, NaN and ±Inf unchanged. The same steps
// as f16round of the Vulkan kernels (gpu/vulkan/shaders/f16.glsl), each exact in float32.
func RoundF16(v float32) float32 {
	if v != v || math.IsInf(float64(v), 0) {
		return v
	}
	e := max(int(math.Float32bits(v)>>23&0xff)-127, -14)
	r := float32(math.RoundToEven(float64(v*pow2(10-e)))) * pow2(e-10)
	if math.Abs(float64(r)) > 65504 {
		return float32(math.Copysign(math.Inf(1), float64(v)))
	}
	return r
}

// RowShift is the power of two by which the fast Linear scales a row of activations before
// rounding it to float16 (gpu/vulkan/shaders/rowscale.comp): the row's largest finite |v|
// times 2^shift lies in [2^14, 2^15); 0 for a row without a finite non-zero value; clamped to
// [-100, 100].
func RowShift(row []float32) int {
	var m float32
	for _, v := range row {
		if a := float32(math.Abs(float64(v))); !math.IsInf(float64(a), 0) && a == a {
			m = max(m, a)
		}
	}
	if m == 0 {
		return 0
	}
	return min(max(14-(int(math.Float32bits(m)>>23&0xff)-127), -100), 100)
}

// F16Rows returns x [rows, in] as the fast Linear multiplies it: each row scaled by
// 2^RowShift, rounded to float16 (RoundF16) and scaled back, in float64 (exact).
func F16Rows(x []float32, rows, in int) []float64 {
	out := make([]float64, len(x))
	for r := range rows {
		row := x[r*in : (r+1)*in]
		sh := RowShift(row)
		for i, v := range row {
			out[r*in+i] = math.Ldexp(float64(RoundF16(v*pow2(sh))), -sh)
		}
	}
	return out
}

// F16Weights returns the float16 roundings of wide (bf16 weights widened), in float64.
func F16Weights(wide []float64) []float64 {
	out := make([]float64, len(wide))
	for i, v := range wide {
		out[i] = float64(RoundF16(float32(v)))
	}
	return out
}

// F16Image returns img [channels, hw] as the fast Conv2D multiplies it
// (gpu/vulkan/shaders/convf16.glsl): scaled by 2^s, s the least RowShift of its channels,
// rounded to float16 (RoundF16) and scaled back, which float32 holds exactly.
func F16Image(img []float32, channels, hw int) []float32 {
	s := 100
	for c := range channels {
		s = min(s, RowShift(img[c*hw:(c+1)*hw]))
	}
	out := make([]float32, len(img))
	for i, v := range img {
		out[i] = float32(math.Ldexp(float64(RoundF16(v*pow2(s))), -s))
	}
	return out
}
