package gputest

import (
	"math"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// --- Linear -----------------------------------------------------------------------------------

// refLinear is y = x·wᵀ + bias in float64 for x [rows, in], w [out, in].
func refLinear(x []float32, rows, in, out int, w []float64, bias []float32) []float64 {
	y := make([]float64, rows*out)
	for r := 0; r < rows; r++ {
		for o := 0; o < out; o++ {
			var s float64
			xr, wr := x[r*in:(r+1)*in], w[o*in:(o+1)*in]
			for i, v := range xr {
				s += float64(v) * wr[i]
			}
			if bias != nil {
				s += float64(bias[o])
			}
			y[r*out+o] = s
		}
	}
	return y
}

// bf16Activations returns x as a bf16-weight Linear of the backend sees it: rounded to
// bfloat16 with Options.BF16Activations, unchanged otherwise.
func (e *env) bf16Activations(x []float32) []float32 {
	if !e.o.BF16Activations {
		return x
	}
	r := make([]float32, len(x))
	for i, v := range x {
		r[i] = roundBF16(v)
	}
	return r
}

// f16Linear is the float64 product x·wᵀ of the operands as a float16 Linear rounds them
// (Options.F16Linear; nil otherwise).
func (e *env) f16Linear(x []float32, rows, in, out int, wide []float64) []float64 {
	if !e.o.F16Linear {
		return nil
	}
	return refLinearWide(refmath.F16Rows(x, rows, in), rows, in, out, refmath.F16Weights(wide))
}

// refLinearWide is refLinear without bias on float64 activations.
func refLinearWide(x []float64, rows, in, out int, w []float64) []float64 {
	y := make([]float64, rows*out)
	for r := range rows {
		for o := range out {
			var s float64
			xr, wr := x[r*in:(r+1)*in], w[o*in:(o+1)*in]
			for i, v := range xr {
				s += v * wr[i]
			}
			y[r*out+o] = s
		}
	}
	return y
}

// TestLinear checks Linear with F32 weights (WeightF32 and uploaded tensors), BF16 weights and
// optional bias.
func TestLinear(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	// The last two span several bf16 conversion tiles of the CPU backend (2688 rows at
	// in = 3072, 512 at in = 16384) with a ragged end.
	shapes := [][3]int{{1, 1, 1}, {1, 7, 7}, {7, 129, 300}, {129, 7, 513}, {5, 3072, 129}, {33, 96, 256}, {2, 3072, 2700}, {3, 16384, 600}}
	if o.Short {
		shapes = [][3]int{{1, 1, 1}, {1, 7, 7}, {7, 129, 300}, {129, 7, 513}, {5, 3072, 129}, {33, 96, 256}}
	}
	for _, sh := range shapes {
		rows, in, out := sh[0], sh[1], sh[2]
		x := e.randn(rows*in, 0)
		bias := e.randn(out, 0)
		std := 1 / math.Sqrt(float64(in))
		bits, wide := refmath.RandBF16(e.r, out*in, std)
		wf32 := e.randScaled(out*in, std)
		// The float64 references dominate the run time: compute them once without bias.
		ref32 := refLinear(x, rows, in, out, refmath.Widen(wf32), nil)
		ref16 := refLinear(e.bf16Activations(x), rows, in, out, wide, nil)
		refF16 := e.f16Linear(x, rows, in, out, wide)
		for _, withBias := range []bool{false, true} {
			var bb []float32
			if withBias {
				bb = bias
			}
			lb := label("rows=%d in=%d out=%d bias=%v", rows, in, out, withBias)
			biasT := func() gpu.Tensor {
				if !withBias {
					return gpu.Tensor{}
				}
				return e.weight(bias).t
			}

			// F32 weights: a WeightF32 view without bias, an uploaded tensor with.
			xt, y := e.in(x, rows, in), e.out(rows*out, rows, out)
			var w *buf
			if withBias {
				w = e.in(wf32, out, in)
			} else {
				w = e.weight(wf32, out, in)
			}
			b.Linear(y.t, xt.t, w.t, biasT(), rows)
			e.check(lb+" f32", e.read(lb, y), addBias(ref32, bb, 1), tolGemm(in))
			e.done(lb + " f32")

			xt, y = e.in(x, rows, in), e.out(rows*out, rows, out)
			w = e.weightBF16(bits, out, in)
			b.Linear(y.t, xt.t, w.t, biasT(), rows)
			got := e.read(lb, y)
			if o.F16Linear {
				e.check(lb+" bf16 as f16", got, addBias(refF16, bb, 1), tolGemm(in))
				e.check(lb+" bf16 (f16) vs f32", got, addBias(ref16, bb, 1), TolF16Linear)
			} else {
				e.check(lb+" bf16", got, addBias(ref16, bb, 1), tolGemm(in))
			}
			e.done(lb + " bf16")
		}
	}
}

// TestLinearAdd checks LinearAdd (y += s·x·wᵀ) with F32 and BF16 weights on backends that
// implement gpu.LinearAdder (others skip it), against y + s·x·wᵀ in float64; y starts at
// values of the product's size, so that dropping either term fails.
func TestLinearAdd(t *testing.T, b gpu.Backend, o Options) {
	la, ok := b.(gpu.LinearAdder)
	if !ok {
		t.Skipf("%s has no LinearAdd", b.Name())
	}
	e := newEnv(t, b, o)
	shapes := [][3]int{{1, 1, 1}, {7, 32, 300}, {129, 7, 513}, {33, 96, 256}, {2, 3072, 2700}}
	if o.Short {
		shapes = shapes[:4]
	}
	for _, sh := range shapes {
		rows, in, out := sh[0], sh[1], sh[2]
		x, y0 := e.randn(rows*in, 0), e.randn(rows*out, 0)
		std := 1 / math.Sqrt(float64(in))
		bits, wide := refmath.RandBF16(e.r, out*in, std)
		wf32 := e.randScaled(out*in, std)
		for _, s := range []float32{0.7, -1.5} {
			for _, bf := range []bool{false, true} {
				lb := label("rows=%d in=%d out=%d s=%v bf16=%v", rows, in, out, s, bf)
				wref, w := refmath.Widen(wf32), (*buf)(nil)
				if bf {
					wref, w = wide, e.weightBF16(bits, out, in)
				} else {
					w = e.weight(wf32, out, in)
				}
				want := refLinear(x, rows, in, out, wref, nil)
				var wantF16 []float64
				if bf && o.F16Linear {
					wantF16 = e.f16Linear(x, rows, in, out, wide)
				}
				for i := range want {
					want[i] = float64(y0[i]) + float64(s)*want[i]
					if wantF16 != nil {
						wantF16[i] = float64(y0[i]) + float64(s)*wantF16[i]
					}
				}
				xt, y := e.in(x, rows, in), e.tensor(y0, false, rows, out)
				la.LinearAdd(y.t, xt.t, w.t, rows, s)
				got := e.read(lb, y)
				if wantF16 != nil {
					e.check(lb+" as f16", got, wantF16, tolGemm(in))
					e.check(lb+" (f16) vs f32", got, want, TolF16Linear)
				} else {
					e.check(lb, got, want, tolGemm(in))
				}
				e.done(lb)
			}
		}
	}
}

// addBias returns ref [n, len(bias)·inner] plus bias[c] on every element of channel c
// (ref itself for a nil bias): Linear's columns (inner 1) and Conv2D's channels.
func addBias(ref []float64, bias []float32, inner int) []float64 {
	if bias == nil {
		return ref
	}
	out := make([]float64, len(ref))
	for i, v := range ref {
		out[i] = v + float64(bias[(i/inner)%len(bias)])
	}
	return out
}

// --- Attention --------------------------------------------------------------------------------

// refAttention computes attention in float64 straight from the definition, dense [SeqQ,
// Heads·HeadDim]; masked keys are left out (they weigh exactly 0).
func refAttention(q, k, v []float32, p gpu.AttnParams) []float64 {
	p = p.WithDefaults()
	out := make([]float64, p.SeqQ*p.Heads*p.HeadDim)
	group := p.Heads / p.KVHeads
	for h := 0; h < p.Heads; h++ {
		kvh := h / group
		for i := 0; i < p.SeqQ; i++ {
			scores := make([]float64, 0, p.SeqK)
			var keys []int
			qr := q[i*p.QStride+h*p.HeadDim : i*p.QStride+(h+1)*p.HeadDim]
			for j := 0; j < p.SeqK; j++ {
				if (p.Causal && j > i) || (p.KeyValid > 0 && j >= p.KeyValid) {
					continue
				}
				kr := k[j*p.KStride+kvh*p.HeadDim : j*p.KStride+(kvh+1)*p.HeadDim]
				var s float64
				for e, qv := range qr {
					s += float64(qv) * float64(kr[e])
				}
				scores = append(scores, s*float64(p.Scale))
				keys = append(keys, j)
			}
			w := refmath.Softmax(scores)
			o := out[(i*p.Heads+h)*p.HeadDim : (i*p.Heads+h+1)*p.HeadDim]
			for n, j := range keys {
				vr := v[j*p.VStride+kvh*p.HeadDim : j*p.VStride+(kvh+1)*p.HeadDim]
				for e, vv := range vr {
					o[e] += w[n] * float64(vv)
				}
			}
		}
	}
	return out
}

type attnCase struct {
	name  string
	p     gpu.AttnParams
	pad   int  // extra elements per row of q, k, v and out (0: packed)
	qkv   bool // q, k and v are views of one fused [seq, q|k|v] buffer
	large bool // skipped with Options.Short
}

// TestAttention checks Attention: multi-head and grouped-query, causal and KeyValid masks,
// strided and fused layouts, SeqQ ≠ SeqK, and long key sequences at head dim 128 (the models'
// head dim) so that tiled implementations run several tiles; then that NaN and +Inf in the
// queries, keys and values propagate as the definition says (testAttentionNonFinite).
func TestAttention(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	type P = gpu.AttnParams
	cases := []attnCase{
		{name: "single", p: P{SeqQ: 1, SeqK: 1, Heads: 1, HeadDim: 8}},
		{name: "MHA-127", p: P{SeqQ: 127, SeqK: 127, Heads: 2, HeadDim: 16}},
		{name: "MHA-129", p: P{SeqQ: 129, SeqK: 129, Heads: 3, HeadDim: 8}},
		{name: "MHA-300-d128", p: P{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 128}, large: true},
		{name: "GQA-4:2", p: P{SeqQ: 129, SeqK: 129, Heads: 4, KVHeads: 2, HeadDim: 16}},
		{name: "GQA-8:2-causal", p: P{SeqQ: 300, SeqK: 300, Heads: 8, KVHeads: 2, HeadDim: 8, Causal: true}},
		{name: "causal-1", p: P{SeqQ: 1, SeqK: 1, Heads: 2, HeadDim: 8, Causal: true}},
		{name: "causal-127", p: P{SeqQ: 127, SeqK: 127, Heads: 2, HeadDim: 8, Causal: true}},
		{name: "causal-129", p: P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}},
		{name: "keyvalid-77", p: P{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 8, KeyValid: 77}},
		{name: "keyvalid-1", p: P{SeqQ: 7, SeqK: 129, Heads: 1, HeadDim: 8, KeyValid: 1}},
		{name: "keyvalid>seqk", p: P{SeqQ: 7, SeqK: 9, Heads: 1, HeadDim: 8, KeyValid: 100}},
		{name: "causal+keyvalid-130", p: P{SeqQ: 300, SeqK: 300, Heads: 4, KVHeads: 2, HeadDim: 8, Causal: true, KeyValid: 130}},
		{name: "causal+keyvalid-12", p: P{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 8, Causal: true, KeyValid: 12}},
		{name: "strided", p: P{SeqQ: 129, SeqK: 129, Heads: 2, KVHeads: 1, HeadDim: 8, Scale: 0.3}, pad: 5},
		{name: "packed-qkv", p: P{SeqQ: 300, SeqK: 300, Heads: 3, HeadDim: 16}, qkv: true},
		{name: "seqq<seqk", p: P{SeqQ: 7, SeqK: 300, Heads: 2, HeadDim: 8}, pad: 3},
		{name: "seqq>seqk", p: P{SeqQ: 300, SeqK: 129, Heads: 2, HeadDim: 8}},
		{name: "seqq=1", p: P{SeqQ: 1, SeqK: 129, Heads: 2, KVHeads: 2, HeadDim: 64}},
		{name: "seqk=1", p: P{SeqQ: 129, SeqK: 1, Heads: 2, HeadDim: 8}},
		// Long key sequences at the models' head dim: several key tiles, ragged ends.
		{name: "long-d128", p: P{SeqQ: 5, SeqK: 700, Heads: 2, KVHeads: 1, HeadDim: 128}},
		{name: "long-d128-keyvalid", p: P{SeqQ: 33, SeqK: 1031, Heads: 2, HeadDim: 128, KeyValid: 517}, pad: 2, large: true},
		{name: "long-d128-GQA", p: P{SeqQ: 65, SeqK: 1100, Heads: 4, KVHeads: 2, HeadDim: 128}, large: true},
		{name: "long-causal-d128", p: P{SeqQ: 520, SeqK: 520, Heads: 1, HeadDim: 128, Causal: true}, large: true},
		{name: "packed-qkv-d128", p: P{SeqQ: 260, SeqK: 260, Heads: 3, HeadDim: 128}, qkv: true, large: true},
		// Visible keys in whole tiles of 16, 32 or 64 and no causal mask: kernels may leave
		// the mask out.
		{name: "whole-tiles-64", p: P{SeqQ: 70, SeqK: 64, Heads: 2, HeadDim: 16}},
		{name: "whole-tiles-keyvalid-96-d128", p: P{SeqQ: 40, SeqK: 300, Heads: 2, KVHeads: 1, HeadDim: 128, KeyValid: 96}},
		{name: "whole-tiles-128-d512", p: P{SeqQ: 20, SeqK: 128, Heads: 1, HeadDim: 512}},
	}
	for _, c := range cases {
		if c.large && o.Short {
			continue
		}
		e.attention(c)
	}
	testAttentionNonFinite(e)
}

func (e *env) attention(c attnCase) {
	e.t.Helper()
	p := c.p
	kvh := p.KVHeads
	if kvh == 0 {
		kvh = p.Heads
	}
	qw, kw := p.Heads*p.HeadDim, kvh*p.HeadDim
	var qh, kh, vh []float32 // host copies, laid out as p says
	var q, k, v gpu.Tensor
	if c.qkv {
		// One [seq, q|k|v] buffer as a fused projection produces it.
		stride := qw + 2*kw
		all := e.randn(p.SeqQ*stride, 0)
		for i := range all {
			if i%stride < qw {
				all[i] *= 1.5 // peakier softmax
			}
		}
		qh, kh, vh = all, all[qw:], all[qw+kw:]
		p.QStride, p.KStride, p.VStride = stride, stride, stride
		x := e.in(all)
		q, k, v = x.t, x.t.From(qw), x.t.From(qw+kw)
	} else {
		if c.pad > 0 {
			p.QStride, p.KStride, p.VStride, p.OutStride = qw+c.pad, kw+c.pad, kw+c.pad, qw+c.pad
		}
		pd := p.WithDefaults()
		qd := e.randn(p.SeqQ*qw, 0)
		for i := range qd {
			qd[i] *= 1.5 // peakier softmax
		}
		qh = strided(qd, p.SeqQ, qw, pd.QStride)
		kh = strided(e.randn(p.SeqK*kw, 0), p.SeqK, kw, pd.KStride)
		vh = strided(e.randn(p.SeqK*kw, 0), p.SeqK, kw, pd.VStride)
		q, k, v = e.in(qh).t, e.in(kh).t, e.in(vh).t
	}
	outStride := p.WithDefaults().OutStride
	init := make([]float32, (p.SeqQ-1)*outStride+qw)
	for i := range init {
		init[i] = float32(math.NaN())
		if i%outStride >= qw {
			init[i] = 3
		}
	}
	out := e.tensor(init, false)
	want := refAttention(qh, kh, vh, p)
	e.b.Attention(out.t, q, k, v, p)
	got := e.read(c.name, out)
	tol := tolGemm(max(p.SeqK, p.HeadDim))
	if e.o.F16Attention {
		tol = TolF16Attention
	}
	e.check(c.name, dense(got, p.SeqQ, qw, outStride), want, tol)
	e.checkUntouched(c.name, got, init, p.SeqQ, qw, outStride)
	e.done(c.name)
}

// --- Conv2D -----------------------------------------------------------------------------------

// refConv is the convolution of one image in float64 straight from the definition.
func refConv(in []float32, w []float64, bias []float32, outC int, p gpu.ConvParams) []float64 {
	oh, ow := p.OutSize()
	s := max(p.Stride, 1)
	out := make([]float64, outC*oh*ow)
	for o := 0; o < outC; o++ {
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				var acc float64
				for c := 0; c < p.InC; c++ {
					for ky := 0; ky < p.KH; ky++ {
						iy := y*s + ky - p.PadTop
						if iy < 0 || iy >= p.InH {
							continue
						}
						for kx := 0; kx < p.KW; kx++ {
							ix := x*s + kx - p.PadLeft
							if ix < 0 || ix >= p.InW {
								continue
							}
							acc += float64(in[(c*p.InH+iy)*p.InW+ix]) * w[((o*p.InC+c)*p.KH+ky)*p.KW+kx]
						}
					}
				}
				if bias != nil {
					acc += float64(bias[o])
				}
				out[(o*oh+y)*ow+x] = acc
			}
		}
	}
	return out
}

// TestConv2D checks Conv2D with F32 and BF16 kernels: 1×1, 3×3 with padding, stride 2 with the
// VAE's right/bottom-only padding, asymmetric and ragged shapes, and 512 channels.
func TestConv2D(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	type P = gpu.ConvParams
	cases := []struct {
		name  string
		outC  int
		p     P
		large bool
	}{
		{name: "1x1", outC: 5, p: P{InC: 7, InH: 9, InW: 11, KH: 1, KW: 1, Stride: 1}},
		{name: "1x1-1px", outC: 3, p: P{InC: 1, InH: 1, InW: 1, KH: 1, KW: 1}},
		{name: "1x1-stride2", outC: 4, p: P{InC: 3, InH: 7, InW: 9, KH: 1, KW: 1, Stride: 2}},
		{name: "3x3-pad1", outC: 7, p: P{InC: 3, InH: 13, InW: 9, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{name: "3x3-pad1-1px", outC: 2, p: P{InC: 4, InH: 1, InW: 1, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{name: "3x3-pad1-1xN", outC: 3, p: P{InC: 2, InH: 1, InW: 7, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{name: "3x3-s2-pad0011", outC: 6, p: P{InC: 5, InH: 16, InW: 12, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{name: "3x3-s2-pad0011-odd", outC: 3, p: P{InC: 4, InH: 15, InW: 13, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{name: "3x3-s2-pad0011-2px", outC: 3, p: P{InC: 2, InH: 2, InW: 2, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{name: "3x1-pad-asym", outC: 4, p: P{InC: 3, InH: 8, InW: 5, KH: 3, KW: 1, Stride: 1, PadTop: 2, PadLeft: 1}},
		{name: "1x3-stride3", outC: 2, p: P{InC: 2, InH: 7, InW: 10, KH: 1, KW: 3, Stride: 3}},
		{name: "3x3-pad1-tiles", outC: 9, p: P{InC: 16, InH: 64, InW: 80, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{name: "3x3-pad1-wide", outC: 4, p: P{InC: 512, InH: 21, InW: 33, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		// The VAE decoder's 512-channel 3×3 convs on a small image.
		{name: "3x3-512ch", outC: 512, p: P{InC: 512, InH: 5, InW: 7, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}, large: true},
	}
	for _, c := range cases {
		if c.large && o.Short {
			continue
		}
		p := c.p
		kdim := p.InC * p.KH * p.KW
		img := e.randn(p.InC*p.InH*p.InW, 0)
		bias := e.randn(c.outC, 0)
		std := 1 / math.Sqrt(float64(kdim))
		bits, wide := refmath.RandBF16(e.r, c.outC*kdim, std)
		wf32 := e.randScaled(c.outC*kdim, std)
		oh, ow := p.OutSize()
		// Every combination on small cases; on large ones f32 with bias and bf16 without.
		small := c.outC*kdim*oh*ow < 1<<22
		var ref32, ref16 []float64 // without bias, computed when first needed
		var f32h, bf16h []float64  // the same on float16-rounded operands (Options.F16Conv)
		for _, withBias := range []bool{false, true} {
			var bb []float32
			var bt gpu.Tensor
			if withBias {
				bb, bt = bias, e.weight(bias).t
			}
			lb := label("%s bias=%v", c.name, withBias)
			if withBias || small {
				in, out := e.in(img, p.InC, p.InH, p.InW), e.out(c.outC*oh*ow, c.outC, oh, ow)
				w := e.weight(wf32, c.outC, kdim)
				b.Conv2D(out.t, in.t, w.t, bt, p)
				if ref32 == nil {
					ref32 = refConv(img, refmath.Widen(wf32), nil, c.outC, p)
				}
				got := e.read(lb, out)
				want := ref32
				if o.F16Conv {
					e.check(lb+" f32 (f16) vs f32", got, addBias(ref32, bb, oh*ow), TolF16Linear)
					if f32h == nil {
						f32h = refConv(refmath.F16Image(img, p.InC, p.InH*p.InW), refmath.F16Weights(refmath.Widen(wf32)), nil, c.outC, p)
					}
					want = f32h
				}
				e.check(lb+" f32", got, addBias(want, bb, oh*ow), tolGemm(kdim))
			}
			if !withBias || small {
				in, out := e.in(img, p.InC, p.InH, p.InW), e.out(c.outC*oh*ow, c.outC, oh, ow)
				w := e.weightBF16(bits, c.outC, kdim)
				b.Conv2D(out.t, in.t, w.t, bt, p)
				if ref16 == nil {
					ref16 = refConv(img, wide, nil, c.outC, p)
				}
				got := e.read(lb, out)
				want := ref16
				if o.F16Conv {
					e.check(lb+" bf16 (f16) vs f32", got, addBias(ref16, bb, oh*ow), TolF16Linear)
					if bf16h == nil {
						bf16h = refConv(refmath.F16Image(img, p.InC, p.InH*p.InW), refmath.F16Weights(wide), nil, c.outC, p)
					}
					want = bf16h
				}
				e.check(lb+" bf16", got, addBias(want, bb, oh*ow), tolGemm(kdim))
			}
			e.done(lb)
		}
	}
}
