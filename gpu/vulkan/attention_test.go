//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math/rand/v2"
	"os"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

// TestAttentionPerQuery runs the conformance suite's attention cases (the short set) on the
// per-query kernel, which serves head dims above 512; TestConformance covers the flash
// kernels.
func TestAttentionPerQuery(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	defer b.Close()
	b.attnPerQuery = true
	gputest.TestAttention(t, b, gputest.Options{Short: true, LogErrors: *logErrors})
}

// attnShapes are the models' attention shapes with fewer heads (every head costs the same,
// and lavapipe is slow), as gpu/webgpu's attention benchmark has them: klein-4B's joint
// attention (head dim 128, 512 text tokens + 256 or 1024 image tokens), Qwen3's causal
// grouped-query attention (here 4 query heads on 1 key-value head) and the VAE's one-head
// attention at head dim 512.
var attnShapes = []struct {
	name string
	p    gpu.AttnParams
}{
	{"klein-768-h2", gpu.AttnParams{SeqQ: 768, SeqK: 768, Heads: 2, HeadDim: 128}},
	{"klein-1536-h2", gpu.AttnParams{SeqQ: 1536, SeqK: 1536, Heads: 2, HeadDim: 128}},
	{"qwen3-512-causal-h4kv1", gpu.AttnParams{SeqQ: 512, SeqK: 512, Heads: 4, KVHeads: 1, HeadDim: 128, Causal: true}},
	{"vae-1024-d512", gpu.AttnParams{SeqQ: 1024, SeqK: 1024, Heads: 1, HeadDim: 512}},
}

// usefulAttnFLOPs counts 4 FLOPs (a multiply-add for the score, one for P·V) per head dim per
// visible (query, key) pair, as gpu/webgpu's benchmark does.
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

// BenchmarkAttention runs the flash and the per-query kernel at the models' shapes
// (attnShapes), reporting useful GFLOP/s.
func BenchmarkAttention(bm *testing.B) {
	b, err := open(Options{Device: -1})
	if err != nil {
		bm.Skip(err)
	}
	defer b.Close()
	for _, s := range attnShapes {
		for _, kernel := range []string{"flash", "perquery"} {
			bm.Run(s.name+"/"+kernel, func(bm *testing.B) {
				b.attnPerQuery = kernel == "perquery"
				p := s.p.WithDefaults()
				r := rand.New(rand.NewPCG(1, 2))
				rnd := func(n int) []float32 {
					v := make([]float32, n)
					for i := range v {
						v[i] = float32(r.NormFloat64())
					}
					return v
				}
				q, _ := gpu.FromHost(b, rnd(p.SeqQ*p.QStride), p.SeqQ*p.QStride)
				k, _ := gpu.FromHost(b, rnd(p.SeqK*p.KStride), p.SeqK*p.KStride)
				v, _ := gpu.FromHost(b, rnd(p.SeqK*p.VStride), p.SeqK*p.VStride)
				o, _ := b.Alloc(gpu.F32, p.SeqQ*p.OutStride)
				defer func() {
					for _, t := range []gpu.Tensor{q, k, v, o} {
						b.Free(t)
					}
				}()
				b.Attention(o, q, k, v, p) // compiles the kernel
				if err := b.Sync(); err != nil {
					bm.Fatal(err)
				}
				bm.ResetTimer()
				for range bm.N {
					b.Attention(o, q, k, v, p)
					if err := b.Sync(); err != nil {
						bm.Fatal(err)
					}
				}
				bm.ReportMetric(usefulAttnFLOPs(p)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
