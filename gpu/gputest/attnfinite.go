package gputest

import (
	"math"
	"strings"

	"kleinbild/gpu"
)

// attnPoison is one non-finite value planted in attention's inputs: in 'q' (row, head, dim),
// 'k' or 'v' (key row, kv head, dim).
type attnPoison struct {
	in           byte
	row, head, e int
	val          float32
}

// testAttentionNonFinite checks that a NaN or +Inf in the query or key path reaches the
// output as the definition says (issue 30 item 9: a flash kernel's max/exp turned NaN scores
// into finite values, so a NaN weight gave a finite, wrong image): every output the float64
// reference makes non-finite is non-finite (NaN or ±Inf), every other one finite and close to
// it. A NaN in a masked key (beyond KeyValid, or after the query under the causal mask) is
// left out like the key itself, in K and in V: a masked key's weight is exactly 0, and its
// value must not enter as 0·NaN (issue 37: a NaN in V of a masked key inside a loaded tile
// spread to the queries before it).
func testAttentionNonFinite(e *env) {
	e.t.Helper()
	type P = gpu.AttnParams
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name   string
		p      P
		poison []attnPoison
	}{
		{"nan-q", P{SeqQ: 129, SeqK: 129, Heads: 3, HeadDim: 8}, []attnPoison{{'q', 5, 1, 2, nan}}},
		{"nan-k-GQA", P{SeqQ: 129, SeqK: 129, Heads: 4, KVHeads: 2, HeadDim: 16}, []attnPoison{{'k', 40, 1, 3, nan}}},
		{"inf-q-causal", P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, []attnPoison{{'q', 70, 0, 0, inf}}},
		{"nan-k-causal", P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, []attnPoison{{'k', 100, 1, 5, nan}}},
		{"nan-k-masked", P{SeqQ: 60, SeqK: 300, Heads: 2, HeadDim: 8, KeyValid: 77}, []attnPoison{{'k', 200, 0, 1, nan}, {'k', 290, 1, 7, inf}}},
		{"nan-k-d128-last-tile", P{SeqQ: 5, SeqK: 700, Heads: 2, KVHeads: 1, HeadDim: 128}, []attnPoison{{'k', 650, 0, 127, nan}}},
		{"nan-q-d128", P{SeqQ: 70, SeqK: 70, Heads: 2, HeadDim: 128}, []attnPoison{{'q', 66, 1, 64, nan}}},
		{"nan-q-d512", P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 512}, []attnPoison{{'q', 3, 0, 500, nan}}},
		{"nan-k-d512", P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 512}, []attnPoison{{'k', 39, 0, 0, nan}}},
		// V: a visible NaN or Inf reaches the outputs of its dim; masked ones inside a loaded
		// tile (causal: the keys after a query in the diagonal tile; KeyValid: the rest of the
		// last tile) reach nothing.
		{"nan-v", P{SeqQ: 70, SeqK: 90, Heads: 2, HeadDim: 16}, []attnPoison{{'v', 33, 1, 4, nan}}},
		{"nan-v-causal", P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, []attnPoison{{'v', 40, 1, 5, nan}, {'v', 77, 0, 31, inf}}},
		{"nan-v-causal-GQA-d128", P{SeqQ: 100, SeqK: 100, Heads: 4, KVHeads: 2, HeadDim: 128, Causal: true}, []attnPoison{{'v', 45, 1, 127, nan}}},
		{"nan-v-masked", P{SeqQ: 60, SeqK: 300, Heads: 2, HeadDim: 8, KeyValid: 77}, []attnPoison{{'v', 78, 0, 1, nan}, {'v', 79, 1, 7, inf}}},
		{"nan-v-masked-d512", P{SeqQ: 20, SeqK: 70, Heads: 1, HeadDim: 512, KeyValid: 45}, []attnPoison{{'v', 50, 0, 300, nan}}},
		{"nan-v-causal-d512", P{SeqQ: 40, SeqK: 40, Heads: 1, HeadDim: 512, Causal: true}, []attnPoison{{'v', 20, 0, 7, nan}}},
		// whole key tiles without a mask
		{"nan-k-whole-tiles", P{SeqQ: 40, SeqK: 64, Heads: 2, HeadDim: 16}, []attnPoison{{'k', 63, 1, 2, nan}}},
		{"inf-q-whole-tiles-d512", P{SeqQ: 20, SeqK: 64, Heads: 1, HeadDim: 512}, []attnPoison{{'q', 19, 0, 511, inf}}},
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
		switch x.in {
		case 'v':
			vh[x.row*kw+x.head*pd.HeadDim+x.e] = x.val
		case 'k':
			kh[x.row*kw+x.head*pd.HeadDim+x.e] = x.val
		default:
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
	if masked := strings.HasSuffix(name, "-masked") || strings.HasSuffix(name, "-masked-d512"); bad == 0 && !masked {
		e.t.Fatalf("%s: the case poisons no output, so it cannot fail", label)
	}
	if len(wantF) > 0 {
		tol := tolGemm(max(pd.SeqK, pd.HeadDim))
		if e.o.F16Attention {
			tol = TolF16Attention
		}
		e.check(label, gotF, wantF, tol)
	}
	e.done(label)
}
