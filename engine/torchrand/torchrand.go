// Package torchrand reproduces torch's CPU random generator: the same seed gives the same
// torch.rand and torch.randn float32 numbers as
// torch.Generator('cpu').manual_seed(seed), so the initial noise of a generation matches
// diffusers' randn_tensor with a CPU generator.
//
// The generator is ATen's MT19937 (seeded with the low 32 bits of the seed). A float32
// uniform consumes one 32-bit draw: (u32 & 0xFFFFFF)·2⁻²⁴. torch.randn of a contiguous
// float32 tensor with at least 16 elements takes torch's AVX2 kernel (normal_fill_AVX2): it
// first fills the whole buffer with uniforms, then applies Box-Muller to each block of 16
// (out[j] = r·cos θ, out[j+8] = r·sin θ with r = sqrt(−2 ln(1−u[j])), θ = 2π·u[j+8]) using
// avx_mathfun's float32 log and sincos; if the count is not a multiple of 16 the last 16
// outputs are recomputed from 16 fresh uniforms. Below 16 elements torch uses its scalar
// float64 Box-Muller with a cached second value; that path is reproduced too.
package torchrand

import "math"

// Generator is a torch-compatible CPU generator. It is not safe for concurrent use.
type Generator struct {
	mt mt19937
	// nextNormal caches the second value of the scalar float64 Box-Muller, like
	// CPUGeneratorImpl::next_double_normal_sample.
	nextNormal    float64
	hasNextNormal bool
}

// New returns a generator in the state of torch.Generator('cpu').manual_seed(seed). torch
// keeps only the low 32 bits of the seed in the engine, so seeds equal modulo 2³² give the
// same numbers.
func New(seed uint64) *Generator {
	g := &Generator{}
	g.mt.seed(seed)
	return g
}

// uniform32 is at::uniform_real_distribution<float>(0, 1): 24 random bits.
func (g *Generator) uniform32() float32 {
	return float32(g.mt.uint32()&0xFFFFFF) * (1.0 / (1 << 24))
}

// uniform64 is at::uniform_real_distribution<double>(0, 1): 53 bits of random64(), which
// joins two draws as (first << 32) | second.
func (g *Generator) uniform64() float64 {
	hi := uint64(g.mt.uint32())
	lo := uint64(g.mt.uint32())
	return float64((hi<<32|lo)&(1<<53-1)) * (1.0 / (1 << 53))
}

// Rand returns n float32 uniforms in [0, 1) like torch.rand(n, generator=g).
func (g *Generator) Rand(n int) []float32 {
	if n <= 0 {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = g.uniform32()
	}
	return out
}

// Randn returns n standard normal float32 values like torch.randn(n, generator=g) (any
// shape with n elements: torch fills contiguous tensors in order).
func (g *Generator) Randn(n int) []float32 {
	if n <= 0 {
		return nil
	}
	out := make([]float32, n)
	if n < 16 {
		for i := range out {
			out[i] = float32(g.normal64())
		}
		return out
	}
	for i := range out {
		out[i] = g.uniform32()
	}
	for i := 0; i+16 <= n; i += 16 {
		boxMuller16(out[i : i+16])
	}
	if n%16 != 0 {
		tail := out[n-16:]
		for i := range tail {
			tail[i] = g.uniform32()
		}
		boxMuller16(tail)
	}
	return out
}

// twoPi is _mm256_set1_ps(2.0f * c10::pi<double>).
var twoPi = float32(2 * math.Pi)

// boxMuller16 is normal_fill_16_AVX2 (mean 0, std 1) on 16 uniforms in place.
func boxMuller16(d []float32) {
	_ = d[15]
	for j := 0; j < 8; j++ {
		u1 := 1 - d[j]
		u2 := d[j+8]
		radius := float32(math.Sqrt(float64(float32(-2 * log32(u1)))))
		theta := float32(twoPi * u2)
		s, c := sincos32(theta)
		d[j] = float32(radius * c)
		d[j+8] = float32(radius * s)
	}
}

// normal64 is at::normal_distribution<double>(0, 1) as in torch 1.13: Box-Muller on two
// float64 uniforms, returning r·cos θ and caching r·sin θ for the next call.
func (g *Generator) normal64() float64 {
	if g.hasNextNormal {
		g.hasNextNormal = false
		return g.nextNormal
	}
	u1 := g.uniform64()
	u2 := g.uniform64()
	r := math.Sqrt(-2 * math.Log(1-u2))
	theta := 2 * math.Pi * u1
	g.nextNormal = r * math.Sin(theta)
	g.hasNextNormal = true
	return r * math.Cos(theta)
}
