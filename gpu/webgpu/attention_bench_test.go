//go:build cgo

package webgpu

import (
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
)

// attnShapes are the models' attention shapes, with fewer heads than the models have (every
// head costs the same, and lavapipe is slow): klein-4B's joint attention (24 heads, head dim
// 128, 512 text tokens + 256, 1024 or 4096 image tokens), Qwen3's causal grouped-query
// attention (32 query / 8 key-value heads at 512 tokens: here 4/1) and the VAE's one-head
// attention at head dim 512 (1024 tokens: a 256² image).
var attnShapes = []struct {
	name string
	p    gpu.AttnParams
}{
	{"klein-768-h2", gpu.AttnParams{SeqQ: 768, SeqK: 768, Heads: 2, HeadDim: 128}},
	{"klein-1536-h2", gpu.AttnParams{SeqQ: 1536, SeqK: 1536, Heads: 2, HeadDim: 128}},
	{"klein-4608-h1", gpu.AttnParams{SeqQ: 4608, SeqK: 4608, Heads: 1, HeadDim: 128}},
	{"qwen3-512-causal-h4kv1", gpu.AttnParams{SeqQ: 512, SeqK: 512, Heads: 4, KVHeads: 1, HeadDim: 128, Causal: true}},
	{"vae-1024-d512", gpu.AttnParams{SeqQ: 1024, SeqK: 1024, Heads: 1, HeadDim: 512}},
}

// usefulAttnFLOPs counts 4 FLOPs (a multiply-add for the score, one for P·V) per head dim per
// visible (query, key) pair.
func usefulAttnFLOPs(p gpu.AttnParams) float64 {
	nk := p.VisibleKeys()
	pairs := 0
	for i := range p.SeqQ {
		if p.Causal {
			pairs += min(i+1, nk)
		} else {
			pairs += nk
		}
	}
	return 4 * float64(pairs) * float64(p.HeadDim) * float64(p.Heads)
}

// BenchmarkAttentionVariants runs every attention variant at the models' shapes
// (attnShapes), reporting useful GFLOP/s.
func BenchmarkAttentionVariants(bb *testing.B) {
	b := openB(bb)
	for _, s := range attnShapes {
		family := FamilyAttention
		if s.p.HeadDim > tiledMaxHeadDim {
			family = FamilyAttention512
		}
		for _, name := range b.Variants(family) {
			bb.Run(s.name+"/"+name, func(bb *testing.B) {
				if err := b.SetVariant(family, name); err != nil {
					bb.Fatal(err)
				}
				p := s.p.WithDefaults()
				r := rand.New(rand.NewPCG(1, 2))
				q, err := gpu.FromHost(b, randF32(r, p.SeqQ*p.QStride, 1), p.SeqQ*p.QStride)
				if err != nil {
					bb.Fatal(err)
				}
				k, _ := gpu.FromHost(b, randF32(r, p.SeqK*p.KStride, 1), p.SeqK*p.KStride)
				v, _ := gpu.FromHost(b, randF32(r, p.SeqK*p.VStride, 1), p.SeqK*p.VStride)
				o, _ := b.Alloc(gpu.F32, p.SeqQ*p.OutStride)
				defer func() {
					for _, t := range []gpu.Tensor{q, k, v, o} {
						b.Free(t)
					}
				}()
				b.Attention(o, q, k, v, p) // compiles the kernel
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.ResetTimer()
				for range bb.N {
					b.Attention(o, q, k, v, p)
					if err := b.Sync(); err != nil {
						bb.Fatal(err)
					}
				}
				bb.ReportMetric(usefulAttnFLOPs(p)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
				bb.ReportMetric(attnWork(b, name, p), "FLOP/useful")
			})
		}
	}
}

// attnWork is the FLOPs the variant name spends per useful FLOP at p, counted from the
// kernels: the legacy kernels compute every score once per 32-dim slice of the head (4 times
// at head dim 128, 16 at 512) and the P·V products once; the flash kernels compute each
// score and product once, over whole query and key tiles (padding, and the masked half of the
// tiles on the causal diagonal, are the excess).
func attnWork(b *Backend, name string, p gpu.AttnParams) float64 {
	nk := p.VisibleKeys()
	useful := usefulAttnFLOPs(p)
	perPair := 4 * float64(p.HeadDim) * float64(p.Heads) // FLOPs per computed (query, key) pair
	if f, ok := flashVariant(name); ok {
		pairs := 0
		for i0 := 0; i0 < p.SeqQ; i0 += f.bq {
			keys := nk
			if p.Causal {
				keys = min(nk, i0+f.bq)
			}
			pairs += f.bq * (keys + f.bk - 1) / f.bk * f.bk
		}
		return float64(pairs) * perPair / useful
	}
	slices := float64((p.HeadDim + 31) / 32)
	// per visible pair: 2·d score FLOPs on every slice, 2·d P·V FLOPs in all
	return (slices*2 + 2) / 4
}
