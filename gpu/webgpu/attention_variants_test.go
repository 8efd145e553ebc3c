//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

// TestAttentionVariants forces every attention variant the adapter can run and runs the
// conformance suite's attention cases on it, then head-dim-512 cases (the VAE's) for the
// FamilyAttention512 variants.
func TestAttentionVariants(t *testing.T) {
	b := open(t)
	t.Logf("workgroup memory %d bytes, %d invocations", b.lim.MaxComputeWorkgroupStorageSize, b.lim.MaxComputeInvocationsPerWorkgroup)
	for _, name := range b.Variants(FamilyAttention) {
		t.Run(name, func(t *testing.T) {
			if err := b.SetVariant(FamilyAttention, name); err != nil {
				t.Fatal(err)
			}
			gputest.TestAttention(t, b, gputest.Options{Short: testing.Short(), LogErrors: *logErrors})
		})
	}
	for _, name := range b.Variants(FamilyAttention512) {
		t.Run("d512/"+name, func(t *testing.T) {
			if err := b.SetVariant(FamilyAttention512, name); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				p    gpu.AttnParams
				pad  int
			}{
				{"vae", gpu.AttnParams{SeqQ: 70, SeqK: 70, Heads: 1, HeadDim: 512}, 0},
				{"keyvalid", gpu.AttnParams{SeqQ: 33, SeqK: 100, Heads: 1, HeadDim: 512, KeyValid: 41}, 0},
				{"causal-GQA-strided", gpu.AttnParams{SeqQ: 40, SeqK: 40, Heads: 2, KVHeads: 1, HeadDim: 256, Causal: true}, 3},
			} {
				checkAttention(t, b, c.name, c.p, c.pad)
			}
		})
	}
}

// checkAttention runs one attention case on random data against a float64 reference
// (rel-L2 ≤ 2e-7·√max(keys, headDim), the conformance suite's tolerance).
func checkAttention(t *testing.T, b *Backend, name string, p gpu.AttnParams, pad int) {
	t.Helper()
	kvh := p.KVHeads
	if kvh == 0 {
		kvh = p.Heads
	}
	qw, kw := p.Heads*p.HeadDim, kvh*p.HeadDim
	if pad > 0 {
		p.QStride, p.KStride, p.VStride, p.OutStride = qw+pad, kw+pad, kw+pad, qw+pad
	}
	p = p.WithDefaults()
	r := rand.New(rand.NewPCG(uint64(len(name)), 7))
	fill := func(n int, s float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * s)
		}
		return x
	}
	qh := fill((p.SeqQ-1)*p.QStride+qw, 1.5)
	kh := fill((p.SeqK-1)*p.KStride+kw, 1)
	vh := fill((p.SeqK-1)*p.VStride+kw, 1)
	up := func(x []float32) gpu.Tensor {
		tt, err := gpu.FromHost(b, x, len(x))
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	q, k, v := up(qh), up(kh), up(vh)
	n := (p.SeqQ-1)*p.OutStride + qw
	out := up(make([]float32, n))
	defer func() {
		for _, x := range []gpu.Tensor{q, k, v, out} {
			b.Free(x)
		}
	}()
	b.Attention(out, q, k, v, p)
	got := make([]float32, n)
	if err := b.Read(got, out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var num, den, maxAbs float64
	group := p.Heads / p.KVHeads
	for h := range p.Heads {
		kh0 := (h / group) * p.HeadDim
		for i := range p.SeqQ {
			var s []float64
			m := math.Inf(-1)
			for j := range p.SeqK {
				if (p.Causal && j > i) || (p.KeyValid > 0 && j >= p.KeyValid) {
					s = append(s, math.Inf(-1))
					continue
				}
				var d float64
				for e := range p.HeadDim {
					d += float64(qh[i*p.QStride+h*p.HeadDim+e]) * float64(kh[j*p.KStride+kh0+e])
				}
				d *= float64(p.Scale)
				s = append(s, d)
				m = max(m, d)
			}
			var l float64
			for j := range s {
				s[j] = math.Exp(s[j] - m)
				l += s[j]
			}
			for e := range p.HeadDim {
				var want float64
				for j := range s {
					want += s[j] / l * float64(vh[j*p.VStride+kh0+e])
				}
				g := float64(got[i*p.OutStride+h*p.HeadDim+e])
				num += (g - want) * (g - want)
				den += want * want
				maxAbs = max(maxAbs, math.Abs(g-want))
			}
		}
	}
	rel := math.Sqrt(num / den)
	tol := 2e-7 * math.Sqrt(float64(max(p.SeqK, p.HeadDim)))
	if *logErrors {
		t.Logf("%s: rel-L2 %.3g, max abs %.3g", name, rel, maxAbs)
	}
	if !(rel <= tol) || maxAbs > 1e-4 {
		t.Errorf("%s: rel-L2 %.3g (tolerance %.3g), max abs %.3g (tolerance 1e-4)", name, rel, tol, maxAbs)
	}
}
