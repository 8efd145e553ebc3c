package flux2

import "math"

// idCols is the number of position id columns per token: (T, H, W, L).
const idCols = 4

// TextIDs returns the position ids of L text tokens, rows (0, 0, 0, l), as [L·4].
func TextIDs(L int) []int64 {
	ids := make([]int64, max(L, 0)*idCols)
	for l := 0; l < L; l++ {
		ids[l*idCols+3] = int64(l)
	}
	return ids
}

// ImageIDs returns the position ids of an h×w token grid at time coordinate t, rows
// (t, row, col, 0) in row-major token order, as [h·w·4]. The target image uses t = 0, the
// k-th reference image (k = 0, 1, ...) t = 10 + 10k.
func ImageIDs(h, w int, t int64) []int64 {
	if h <= 0 || w <= 0 {
		return []int64{}
	}
	ids := make([]int64, h*w*idCols)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			row := ids[(r*w+c)*idCols:]
			row[0], row[1], row[2] = t, int64(r), int64(c)
		}
	}
	return ids
}

// ropeTables computes the rotary cos and sin tables [rows, headDim] for position ids [rows·4]
// as Flux2PosEmbed does: per axis a of width dim, frequencies theta^(−2i/dim) in float64,
// angle = float32(id)·freq, cos/sin rounded to float32 and repeated for the interleaved pair
// (2i, 2i+1); the axes are concatenated along the head dimension.
func ropeTables(cos, sin []float32, ids []int64, axes []int, theta float64) {
	headDim := 0
	for _, a := range axes {
		headDim += a
	}
	var freqs []float64
	for _, dim := range axes {
		for i := 0; i < dim/2; i++ {
			freqs = append(freqs, 1/math.Pow(theta, float64(2*i)/float64(dim)))
		}
	}
	rows := len(ids) / idCols
	for r := 0; r < rows; r++ {
		c, s := cos[r*headDim:(r+1)*headDim], sin[r*headDim:(r+1)*headDim]
		j := 0
		for a, dim := range axes {
			pos := float64(float32(ids[r*idCols+a])) // ids.float() in the reference
			for i := 0; i < dim/2; i++ {
				sv, cv := math.Sincos(pos * freqs[j/2])
				c[j], c[j+1] = float32(cv), float32(cv)
				s[j], s[j+1] = float32(sv), float32(sv)
				j += 2
			}
		}
	}
}

// timestepEmbedding is diffusers' get_timestep_embedding(t, channels, flip_sin_to_cos=True,
// downscale_freq_shift=0, max_period=10000) for one timestep, in float32 like the
// reference: [cos(t·f) | sin(t·f)] with f_i = exp(−ln(10000)·i/half).
//
// The angles reach 1000 rad, so a one-ulp difference in f_i moves the embedding by ~5e-5:
// f_i is computed with torch's own float32 exp (SLEEF's expf_u10), which is what makes the
// result match the reference to ~4e-7 instead of ~5e-6 (rel-L2 of the timestep embedding).
func timestepEmbedding(t float32, channels int) []float32 {
	half := channels / 2
	out := make([]float32, channels)
	negLog := float32(-math.Log(10000))
	for i := 0; i < half; i++ {
		exponent := negLog * float32(i) / float32(half)
		arg := t * expf(exponent)
		out[i] = float32(math.Cos(float64(arg)))
		out[half+i] = float32(math.Sin(float64(arg)))
	}
	return out
}

// expf is SLEEF's xexpf (1-ulp float32 exp, the kernel behind torch.exp on CPU float32
// tensors): Cody-Waite reduction by ln 2 and a degree-7 polynomial, all in float32.
func expf(d float32) float32 {
	switch {
	case d < -104:
		return 0
	case d > 100:
		return float32(math.Inf(1))
	case d != d:
		return d
	}
	const (
		rln2 = 1.442695040888963407359924681001892137426645954152985934135449406931
		l2u  = 0.693145751953125
		l2l  = 1.428606765330187045e-06
	)
	q := float32(math.RoundToEven(float64(d * rln2)))
	s := d - q*l2u
	s -= q * l2l
	u := float32(0.000198527617612853646278381)
	u = u*s + 0.00139304355252534151077271
	u = u*s + 0.00833336077630519866943359
	u = u*s + 0.0416664853692054748535156
	u = u*s + 0.166666671633720397949219
	u = u*s + 0.5
	u = 1 + (s*s*u + s)
	return float32(math.Ldexp(float64(u), int(q)))
}
