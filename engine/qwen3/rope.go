package qwen3

import "math"

// ropeTables returns the rotate-half cos and sin tables [seq, headDim] for positions
// 0..seq-1, reproducing transformers' float32 arithmetic (Qwen3RotaryEmbedding with
// compute_default_rope_parameters):
//
//	inv_freq[i] = 1 / theta^(float32(2i) / float32(headDim))   (float32 throughout)
//	freq[p, i]  = float32(p) · inv_freq[i]                     (one float32 product)
//	emb         = [freq | freq];  cos = cos(emb), sin = sin(emb) (float32)
//
// Each float32 operation is done exactly in float64 and rounded once, so the tables are
// correctly rounded; torch's vectorised pow/cos/sin may differ by an ulp.
func ropeTables(seq, headDim int, theta float64) (cos, sin []float32) {
	half := headDim / 2
	invFreq := make([]float32, half)
	base := float64(float32(theta))
	for i := range invFreq {
		exp := float32(float32(2*i) / float32(headDim))
		p := float32(math.Pow(base, float64(exp)))
		invFreq[i] = float32(1 / float64(p))
	}
	cos = make([]float32, seq*headDim)
	sin = make([]float32, seq*headDim)
	for p := 0; p < seq; p++ {
		c := cos[p*headDim : (p+1)*headDim]
		s := sin[p*headDim : (p+1)*headDim]
		for i, f := range invFreq {
			angle := float64(float32(p) * f)
			c[i] = float32(math.Cos(angle))
			s[i] = float32(math.Sin(angle))
			c[i+half], s[i+half] = c[i], s[i]
		}
	}
	return cos, sin
}
