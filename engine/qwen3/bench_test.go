package qwen3

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"kleinbild/engine/bind"
	"kleinbild/weights"
)

// randomBF16 returns n bf16 values uniform with standard deviation 1/sqrt(fanIn), so that
// activations stay O(1) through the layers.
func randomBF16(rng *rand.Rand, n, fanIn int) []uint16 {
	a := float32(math.Sqrt(3 / float64(fanIn)))
	out := make([]uint16, n)
	for i := range out {
		out[i] = weights.RoundBF16(a * (2*rng.Float32() - 1))
	}
	return out
}

// randomNorm returns n norm scales 1 + 0.1·N(0, 1).
func randomNorm(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 1 + 0.1*float32(rng.NormFloat64())
	}
	return out
}

// BenchmarkLayers4B runs two decoder layers at Qwen3-4B width (hidden 2560, 32 query and 8
// key/value heads of 128, intermediate 9728) over 512 tokens with random bf16 weights held in
// memory. Both layers share one set of weights (400 MB less to generate; each layer still
// streams 200 MB of weights, far beyond any cache).
func BenchmarkLayers4B(b *testing.B) {
	const seq, realTokens, numLayers = 512, 300, 2
	cfg := Config{VocabSize: 1024, HiddenSize: 2560, IntermediateSize: 9728, NumHiddenLayers: numLayers,
		NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128, MaxPositionEmbeddings: 40960,
		RMSNormEps: 1e-6, RopeTheta: 1e6}
	h, q, kv, inter := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize
	rng := rand.New(rand.NewPCG(1, 2))
	mat := func(out, in int) bind.Matrix {
		return bind.Matrix{Out: out, In: in, BF16: randomBF16(rng, out*in, in)}
	}
	layer := decoderLayer{
		inputNorm: randomNorm(rng, h), postNorm: randomNorm(rng, h),
		qNorm: randomNorm(rng, cfg.HeadDim), kNorm: randomNorm(rng, cfg.HeadDim),
		q: mat(q, h), k: mat(kv, h), v: mat(kv, h), o: mat(h, q),
		gate: mat(inter, h), up: mat(inter, h), down: mat(h, inter),
	}
	e := &Encoder{cfg: cfg, b: testBackend(), norm: randomNorm(rng, h),
		embed:  bind.Matrix{Out: cfg.VocabSize, In: h, BF16: randomBF16(rng, cfg.VocabSize*h, 1)},
		layers: []decoderLayer{layer, layer}}
	defer e.Close()
	ids, mask := make([]int, seq), make([]int, seq)
	for i := range ids {
		ids[i] = rng.IntN(cfg.VocabSize)
		if i < realTokens {
			mask[i] = 1
		}
	}

	var out []float32
	start := time.Now()
	n := 0
	for b.Loop() {
		var err error
		if out, err = e.Encode(context.Background(), ids, mask, []int{numLayers}, nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	elapsed := time.Since(start)

	var ss float64
	for _, v := range out {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			b.Fatal("non-finite output")
		}
		ss += float64(v) * float64(v)
	}
	// Projections and MLP, plus q·kᵀ and p·v over the full seq×seq score matrix.
	flopsPerLayer := 2*float64(seq)*float64(h*(q+kv+kv+q)+3*h*inter) + 4*float64(seq)*float64(seq)*float64(q)
	perLayer := elapsed.Seconds() / float64(n*numLayers)
	b.ReportMetric(perLayer*1e3, "ms/layer")
	b.ReportMetric(flopsPerLayer/perLayer/1e9, "GFLOP/s")
	b.Logf("backend %s: %d runs, %.1f GFLOP per layer, output rms %.3g", e.b.Name(), n, flopsPerLayer/1e9, math.Sqrt(ss/float64(len(out))))
}
