package gputest

import (
	"math"

	"kleinbild/gpu"
)

// attnPoison is one non-finite value planted in attention's inputs: in q (row, head, dim) or
// in k (key row, kv head, dim).
type attnPoison struct {
	inK          bool
	row, head, e int
	val          float32
}

// testAttentionNonFinite checks that a NaN or +Inf in the query or key path reaches the
// output as the definition says (issue 30 item 9: a flash kernel's max/exp turned NaN scores
// into finite values, so a NaN weight gave a finite, wrong image): every output the float64
// reference makes non-finite is non-finite (NaN or ±Inf), every other one finite and close to
// it. A NaN in a masked key (beyond KeyValid, or after the query under the causal mask) is
// left out like the key itself.
func testAttentionNonFinite(e *env) {
	e.t.Helper()
	type P = gpu.AttnParams
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name   string
		p      P
		poison []attnPoison
	}{
		{"nan-q", P{SeqQ: 129, SeqK: 129, Heads: 3, HeadDim: 8}, []attnPoison{{false, 5, 1, 2, nan}}},
		{"nan-k-GQA", P{SeqQ: 129, SeqK: 129, Heads: 4, KVHeads: 2, HeadDim: 16}, []attnPoison{{true, 40, 1, 3, nan}}},
		{"inf-q-causal", P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, []attnPoison{{false, 70, 0, 0, inf}}},
		{"nan-k-causal", P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, []attnPoison{{true, 100, 1, 5, nan}}},
		{"nan-k-masked", P{SeqQ: 60, SeqK: 300, Heads: 2, HeadDim: 8, KeyValid: 77}, []attnPoison{{true, 200, 0, 1, nan}, {true, 290, 1, 7, inf}}},
		{"nan-k-d128-last-tile", P{SeqQ: 5, SeqK: 700, Heads: 2, KVHeads: 1, HeadDim: 128}, []attnPoison{{true, 650, 0, 127, nan}}},
		{"nan-q-d128", P{SeqQ: 70, SeqK: 70, Heads: 2, HeadDim: 128}, []attnPoison{{false, 66, 1, 64, nan}}},
		{"nan-q-d512", P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 512}, []attnPoison{{false, 3, 0, 500, nan}}},
		{"nan-k-d512", P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 512}, []attnPoison{{true, 39, 0, 0, nan}}},
	}
	for _, c := range cases {
		e.attentionNonFinite(c.name, c.p, c.poison)
	}
}

func (e *env) attentionNonFinite(name string, p gpu.AttnParams, poison []attnPoison) {
	e.t.Helper()
	label := "non-finite/" + name
	pd := p.WithDefaults()
	qw, kw := pd.Heads*pd.HeadDim, pd.KVHeads*pd.HeadDim
	qh, kh, vh := e.randn(pd.SeqQ*qw, 0), e.randn(pd.SeqK*kw, 0), e.randn(pd.SeqK*kw, 0)
	for _, x := range poison {
		if x.inK {
			kh[x.row*kw+x.head*pd.HeadDim+x.e] = x.val
		} else {
			qh[x.row*qw+x.head*pd.HeadDim+x.e] = x.val
		}
	}
	out := e.out(pd.SeqQ * qw)
	want := refAttention(qh, kh, vh, p)
	e.b.Attention(out.t, e.in(qh).t, e.in(kh).t, e.in(vh).t, p)
	got := e.read(label, out)
	var gotF []float32
	var wantF []float64
	bad := 0
	for i, w := range want {
		g := float64(got[i])
		gFinite := !math.IsNaN(g) && !math.IsInf(g, 0)
		if math.IsNaN(w) || math.IsInf(w, 0) {
			bad++
			if gFinite {
				row, rest := i/qw, i%qw
				e.t.Fatalf("%s: output [%d, head %d, %d] is %v, want non-finite (%v): a non-finite score was swallowed",
					label, row, rest/pd.HeadDim, rest%pd.HeadDim, g, w)
			}
			continue
		}
		if !gFinite {
			row, rest := i/qw, i%qw
			e.t.Fatalf("%s: output [%d, head %d, %d] is %v, want %v: a non-finite value spread beyond the definition",
				label, row, rest/pd.HeadDim, rest%pd.HeadDim, g, w)
		}
		gotF, wantF = append(gotF, got[i]), append(wantF, w)
	}
	if bad == 0 && name != "nan-k-masked" {
		e.t.Fatalf("%s: the case poisons no output, so it cannot fail", label)
	}
	if len(wantF) > 0 {
		e.check(label, gotF, wantF, tolGemm(max(pd.SeqK, pd.HeadDim)))
	}
	e.done(label)
}
