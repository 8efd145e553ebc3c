//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// tileShift is attnf16.glsl's scale of a tile whose largest finite |x| is m.
func tileShift(m float64) int {
	if m == 0 {
		return 0
	}
	return min(max(14-(int(math.Float32bits(float32(m))>>23&0xff)-127), -100), 100)
}

// emulateFastAttention computes attention as attnf16.glsl does, in float64 between its float16
// roundings: 16-query blocks, 32-key tiles, one scale per Q, K and V tile, P rounded to
// float16, the online softmax in base 2, non-finite V added per row.
func emulateFastAttention(q, k, v []float32, p gpu.AttnParams) []float64 {
	p = p.WithDefaults()
	d := p.HeadDim
	out := make([]float64, p.SeqQ*p.Heads*d)
	finite := func(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
	round := func(x float32, s int) float64 { return float64(refmath.RoundF16(x * float32(math.Ldexp(1, s)))) }
	scale2 := float64(float32(float64(p.Scale) * math.Log2E))
	nk := p.VisibleKeys()
	for h := range p.Heads {
		kvh := h / (p.Heads / p.KVHeads)
		for i0 := 0; i0 < p.SeqQ; i0 += 16 {
			rows := min(16, p.SeqQ-i0)
			qv := func(r, c int) float32 { return q[(i0+r)*p.QStride+h*d+c] }
			var m float64
			for r := range rows {
				for c := range d {
					if x := qv(r, c); finite(x) {
						m = max(m, math.Abs(float64(x)))
					}
				}
			}
			aq := tileShift(m)
			mrow, l, o := make([]float64, rows), make([]float64, rows), make([]float64, rows*d)
			bad := make([]bool, rows)
			for r := range mrow {
				mrow[r] = -3e38
			}
			nkw := nk
			if p.Causal {
				nkw = min(nkw, i0+16)
			}
			for j0 := 0; j0 < nkw; j0 += 32 {
				keys := min(32, nkw-j0)
				kv := func(j, c int) float32 { return k[(j0+j)*p.KStride+kvh*d+c] }
				vv := func(j, c int) float32 { return v[(j0+j)*p.VStride+kvh*d+c] }
				var mk, mv float64
				for j := range keys {
					for c := range d {
						if x := kv(j, c); finite(x) {
							mk = max(mk, math.Abs(float64(x)))
						}
						if x := vv(j, c); finite(x) {
							mv = max(mv, math.Abs(float64(x)))
						}
					}
				}
				bk, cv := tileShift(mk), tileShift(mv)
				for r := range rows {
					vis := nk
					if p.Causal {
						vis = min(vis, i0+r+1)
					}
					n := min(max(vis-j0, 0), 32)
					s := make([]float64, n)
					mn := mrow[r]
					for j := range n {
						var sum float64
						for c := range d {
							sum += round(qv(r, c), aq) * round(kv(j, c), bk)
						}
						s[j] = math.Ldexp(sum, -aq-bk) * scale2
						if math.IsNaN(s[j]) || math.IsInf(s[j], 1) {
							bad[r] = true
						} else {
							mn = max(mn, s[j])
						}
					}
					corr := math.Exp2(mrow[r] - mn)
					pj := make([]float64, n)
					l[r] *= corr
					for j := range n {
						if !math.IsNaN(s[j]) && !math.IsInf(s[j], 1) {
							pj[j] = float64(refmath.RoundF16(float32(math.Exp2(s[j] - mn))))
						}
						l[r] += pj[j]
					}
					mrow[r] = mn
					for c := range d {
						var t, fix float64
						for j := range n {
							if x := vv(j, c); finite(x) {
								t += pj[j] * round(x, cv)
							} else {
								fix += pj[j] * float64(x)
							}
						}
						o[r*d+c] = o[r*d+c]*corr + (math.Ldexp(t, -cv) + fix)
					}
				}
			}
			for r := range rows {
				for c := range d {
					x := 0.0
					switch {
					case bad[r]:
						x = math.NaN()
					case l[r] > 0:
						x = o[r*d+c] / l[r]
					}
					out[((i0+r)*p.Heads+h)*d+c] = x
				}
			}
		}
	}
	return out
}

// fastAttnEmulationTol bounds the rel-L2 difference of the fast attention from
// emulateFastAttention: the same float16 values, sums in float32 rather than float64, and a
// softmax weight whose float32 exponential rounds to the neighbouring float16 now and then.
const fastAttnEmulationTol = 2e-5

// TestFastAttentionEmulated compares the fast attention (on lavapipe the twin, attnf16) with
// its emulation on ragged shapes — partial query blocks and key tiles, head dims that are not
// multiples of 32, grouped-query, causal and KeyValid masks, values scaled by 1e5 (beyond float16 unscaled) and 1e-4 — and with
// NaN and Inf in Q, K and V, where the non-finite outputs must match exactly.
func TestFastAttentionEmulated(t *testing.T) {
	b := openFast(t)
	type P = gpu.AttnParams
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		name   string
		p      P
		vscale float32
		poison func(q, k, v []float32)
	}{
		{name: "1x1-d8", p: P{SeqQ: 1, SeqK: 1, Heads: 1, HeadDim: 8}, vscale: 1},
		{name: "ragged-d40", p: P{SeqQ: 37, SeqK: 70, Heads: 2, HeadDim: 40}, vscale: 1},
		{name: "GQA-causal-d128", p: P{SeqQ: 67, SeqK: 67, Heads: 4, KVHeads: 2, HeadDim: 128, Causal: true}, vscale: 1e5},
		{name: "keyvalid-d100", p: P{SeqQ: 20, SeqK: 90, Heads: 1, HeadDim: 100, KeyValid: 45}, vscale: 1e-4},
		{name: "nan-q-inf-k-causal", p: P{SeqQ: 40, SeqK: 40, Heads: 2, HeadDim: 16, Causal: true}, vscale: 1,
			poison: func(q, k, v []float32) { q[3*32+5] = nan; k[20*32+16] = inf }},
		{name: "inf-v-causal-diagonal", p: P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 16, Causal: true}, vscale: 1,
			poison: func(q, k, v []float32) { v[35*16+2] = inf; v[36*16+3] = nan }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p.WithDefaults()
			r := rand.New(rand.NewPCG(uint64(p.SeqQ), uint64(p.HeadDim)))
			randn := func(n int, s float32) []float32 {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.NormFloat64()) * s
				}
				return x
			}
			qw, kw := p.Heads*p.HeadDim, p.KVHeads*p.HeadDim
			q, k, v := randn(p.SeqQ*qw, 1.5), randn(p.SeqK*kw, 1), randn(p.SeqK*kw, c.vscale)
			if c.poison != nil {
				c.poison(q, k, v)
			}
			want := emulateFastAttention(q, k, v, p)
			h := gpu.Held{B: b}
			defer h.Free()
			qt, kt, vt := h.Keep(gpu.FromHost(b, q, p.SeqQ, qw)), h.Keep(gpu.FromHost(b, k, p.SeqK, kw)), h.Keep(gpu.FromHost(b, v, p.SeqK, kw))
			y := h.Keep(b.Alloc(gpu.F32, p.SeqQ, qw))
			if h.Err != nil {
				t.Fatal(h.Err)
			}
			b.Attention(y, qt, kt, vt, c.p)
			got := make([]float32, y.Len())
			if err := b.Read(got, y); err != nil {
				t.Fatal(err)
			}
			compareFinite(t, got, want, fastAttnEmulationTol)
		})
	}
}

// compareFinite checks that got is NaN, +Inf and −Inf exactly where want is, and within tol
// rel-L2 elsewhere.
func compareFinite(t *testing.T, got []float32, want []float64, tol float64) {
	t.Helper()
	var num, den float64
	nonFinite := 0
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(w) || math.IsInf(w, 0) || math.IsNaN(g) || math.IsInf(g, 0) {
			nonFinite++
			if math.IsNaN(w) != math.IsNaN(g) || math.IsInf(w, 1) != math.IsInf(g, 1) || math.IsInf(w, -1) != math.IsInf(g, -1) {
				t.Fatalf("element %d: %v, want %v", i, g, w)
			}
			continue
		}
		num, den = num+(g-w)*(g-w), den+w*w
	}
	rel := math.Sqrt(num / max(den, 1e-300))
	t.Logf("rel-L2 %.3g (tol %.1g), %d non-finite", rel, tol, nonFinite)
	if !(rel <= tol) {
		t.Errorf("rel-L2 %.3g exceeds %.1g", rel, tol)
	}
}
