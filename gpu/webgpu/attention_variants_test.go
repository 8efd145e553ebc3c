//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

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
			// Head dims the conformance suite lacks: chunks overhanging the head (80, 36), and
			// one that is no multiple of 4 (the legacy kernels run it).
			checkAttention(t, b, "d80-GQA", gpu.AttnParams{SeqQ: 45, SeqK: 50, Heads: 4, KVHeads: 2, HeadDim: 80}, 0, 0)
			checkAttention(t, b, "d36-causal-strided", gpu.AttnParams{SeqQ: 40, SeqK: 40, Heads: 2, HeadDim: 36, Causal: true}, 2, 0)
			checkAttention(t, b, "d6", gpu.AttnParams{SeqQ: 20, SeqK: 20, Heads: 2, HeadDim: 6}, 0, 0)
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
				{"d136-causal", gpu.AttnParams{SeqQ: 33, SeqK: 33, Heads: 2, HeadDim: 136, Causal: true}, 0}, // chunks of 32 and 64 overhang the head
			} {
				checkAttention(t, b, c.name, c.p, c.pad, 0)
			}
		})
	}
}

// TestAttentionDispatchSplit runs the flash kernels over query ranges of a few query blocks
// each (a dispatch budget of 2 MFLOP), causal and grouped-query, with vec4 and scalar loads.
func TestAttentionDispatchSplit(t *testing.T) {
	b := open(t)
	for _, c := range []struct {
		name string
		p    gpu.AttnParams
		pad  int
	}{
		{"split-GQA-causal", gpu.AttnParams{SeqQ: 200, SeqK: 200, Heads: 4, KVHeads: 2, HeadDim: 32, Causal: true}, 0},
		{"split-keyvalid-strided", gpu.AttnParams{SeqQ: 150, SeqK: 90, Heads: 2, HeadDim: 64, KeyValid: 70}, 1},
		{"split-d512", gpu.AttnParams{SeqQ: 100, SeqK: 50, Heads: 1, HeadDim: 512}, 0},
	} {
		checkAttention(t, b, c.name, c.p, c.pad, 2e6)
	}
}

// TestAttentionLongKeys runs the default variants on key sequences as long as the models'
// (klein-4B at 1024²: 4608 tokens; the VAE at 1024²: 16384 at head dim 512): llvmpipe stops a
// loop after 65535 iterations per invocation, which the legacy head-dim-512 kernel hits.
func TestAttentionLongKeys(t *testing.T) {
	b := open(t)
	checkAttention(t, b, "klein-1024²", gpu.AttnParams{SeqQ: 40, SeqK: 4608, Heads: 1, HeadDim: 128, KeyValid: 4600}, 0, 0)
	checkAttention(t, b, "vae-1024²", gpu.AttnParams{SeqQ: 20, SeqK: 16384, Heads: 1, HeadDim: 512}, 0, 0)
}

func TestQueriesPerDispatch(t *testing.T) {
	p := gpu.AttnParams{SeqQ: 4608, SeqK: 4608, Heads: 24, HeadDim: 128}
	perQuery := 4.0 * 4608 * 128 * 24
	for _, c := range []struct {
		budget float64
		want   int
	}{
		{0, 32},                  // at least one block
		{perQuery * 31, 32},      // less than a block: one block
		{perQuery * 100, 96},     // whole blocks only
		{perQuery * 10000, 9984}, // more than the queries: still whole blocks
	} {
		if got := queriesPerDispatch(p, 4608, 32, dispatchBound{flops: c.budget}); got != c.want {
			t.Errorf("queriesPerDispatch(budget %g) = %d, want %d", c.budget, got, c.want)
		}
	}
}

// TestAttentionVariantsFit checks that every attention family keeps a flash variant under
// WebGPU's default limits (16 KB of workgroup memory, 256 invocations), and drops the
// variants that need more.
func TestAttentionVariantsFit(t *testing.T) {
	def := wgpu.Limits{MaxComputeWorkgroupStorageSize: 16384, MaxComputeInvocationsPerWorkgroup: 256, MaxComputeWorkgroupSizeX: 256}
	for _, fam := range []string{FamilyAttention, FamilyAttention512} {
		var fit, dropped []string
		for _, v := range familyVariants(fam) {
			if v.fits == nil || v.fits(def) {
				fit = append(fit, v.name)
			} else {
				dropped = append(dropped, v.name)
			}
		}
		if len(fit) == 0 || !strings.HasPrefix(fit[0], "fa-") || len(dropped) == 0 {
			t.Errorf("%s under default limits: runs %v, drops %v; want a flash variant first and some dropped", fam, fit, dropped)
		}
	}
	for _, fam := range []string{FamilyAttention, FamilyAttention512} {
		maxD := 128
		if fam == FamilyAttention512 {
			maxD = 512
		}
		for _, f := range flashVariants(fam) {
			need := f.sharedBytes(maxD)
			lim := wgpu.Limits{MaxComputeWorkgroupStorageSize: uint32(need), MaxComputeInvocationsPerWorkgroup: 256, MaxComputeWorkgroupSizeX: 256}
			if !f.fits(maxD)(lim) {
				t.Errorf("%s does not fit %d bytes, which it needs", f.name("fa"), need)
			}
			lim.MaxComputeWorkgroupStorageSize--
			if f.fits(maxD)(lim) {
				t.Errorf("%s fits one byte less than the %d it needs", f.name("fa"), need)
			}
		}
	}
}

// checkAttention runs one attention case on random data against a float64 reference
// (rel-L2 ≤ 2e-7·√max(keys, headDim), the conformance suite's tolerance), with dispatches of
// at most budget FLOPs (0: the default).
func checkAttention(t *testing.T, b *Backend, name string, p gpu.AttnParams, pad int, budget float64) {
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
	b.attention(out, q, k, v, p, budget)
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
