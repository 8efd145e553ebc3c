package gputest

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
	"kleinbild/gpu/quant"
)

// scaleFields are the byte offsets of quant type d's float16 block scales (d, and the
// minimum m or dmin where the type has one; ggml.Traits.Scales); every other byte of a
// block may hold any value.
func scaleFields(d gpu.DType) []int {
	g, _ := d.GGML()
	tr, _ := g.Traits()
	return tr.Scales
}

// randBlocks returns n elements of dtype d as random blocks: random quants and sub-scales,
// and float16 scales in [2⁻⁸, 2⁻⁶) (minimums of either sign), so values stay O(1).
func randBlocks(r *rand.Rand, d gpu.DType, n int) []byte {
	be, bb := d.Block()
	raw := make([]byte, n/be*bb)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	for blk := 0; blk < len(raw); blk += bb {
		for k, off := range scaleFields(d) {
			h := uint16(0x1c00) | uint16(r.IntN(0x800)) // exponent 7 or 8: 2⁻⁸ .. 2⁻⁶
			if k > 0 && r.IntN(2) == 0 {
				h |= 0x8000
			}
			binary.LittleEndian.PutUint16(raw[blk+off:], h)
		}
	}
	return raw
}

// TestLinearQuant checks Linear with quantized weights (WeightQuant) of every type in
// Options.Quant against the float64 product of the dequantized weight (package quant,
// bit-exact to ggml), at Linear's tolerance tolGemm(in): the backend must dequantize exactly
// and accumulate in float32. Weights are views starting a few blocks into their buffer. Types
// not in Options.Quant must be refused by WeightQuant.
func TestLinearQuant(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	shapes := [][3]int{{1, 256, 16}, {3, 256, 17}, {7, 512, 33}, {33, 768, 129}, {2, 16384, 600}}
	if o.Short {
		shapes = shapes[:4]
	}
	for _, d := range gpu.QuantTypes() {
		be, _ := d.Block()
		if !slices.Contains(o.Quant, d) {
			if w, err := b.WeightQuant(d, randBlocks(e.r, d, 256), 1, 256); err == nil {
				b.Free(w)
				t.Errorf("WeightQuant(%v) succeeded, but %v is not in Options.Quant", d, d)
			}
			continue
		}
		for _, sh := range shapes {
			rows, in, out := sh[0], sh[1], sh[2]
			lb := label("%v rows=%d in=%d out=%d", d, rows, in, out)
			pad := e.pad() * be // whole blocks before the view
			raw := randBlocks(e.r, d, pad+out*in)
			wide := make([]float32, out*in)
			if err := quant.Dequantize(d, wide, raw[d.PackedBytes(pad):]); err != nil {
				t.Fatal(err)
			}
			x, bias := e.randn(rows*in, 0), e.randn(out, 0)
			ref := refLinear(x, rows, in, out, refmath.Widen(wide), nil)
			base, err := b.WeightQuant(d, raw, pad+out*in)
			if err != nil {
				t.Fatalf("%s: WeightQuant: %v", lb, err)
			}
			w := base.Slice(pad, pad+out*in).Reshape(out, in)
			for _, withBias := range []bool{false, true} {
				var bb []float32
				bt := gpu.Tensor{}
				if withBias {
					bb, bt = bias, e.weight(bias).t
				}
				lbb := label("%s bias=%v", lb, withBias)
				xt, y := e.in(x, rows, in), e.out(rows*out, rows, out)
				b.Linear(y.t, xt.t, w, bt, rows)
				e.check(lbb, e.read(lbb, y), addBias(ref, bb, 1), tolGemm(in))
				e.done(lbb)
			}
			b.Free(base)
		}
		testQuantExact(e, d)
	}
	testQuantErrors(e)
}

// testQuantExact multiplies the identity by a weight of dtype d ([8, 512], every other
// block with a subnormal float16 scale), so that y = wᵀ holds the dequantized values
// themselves: they must equal package quant's (ggml's) bit for bit.
func testQuantExact(e *env, d gpu.DType) {
	const in, out = 512, 8
	_, bb := d.Block()
	raw := randBlocks(e.r, d, out*in)
	for blk := bb; blk < len(raw); blk += 2 * bb {
		off := scaleFields(d)[0]
		binary.LittleEndian.PutUint16(raw[blk+off:], uint16(1+e.r.IntN(0x3ff)))
	}
	wide := make([]float32, out*in)
	if err := quant.Dequantize(d, wide, raw); err != nil {
		e.t.Fatal(err)
	}
	want := make([]float32, in*out)
	for o := range out {
		for r := range in {
			want[r*out+o] = wide[o*in+r]
		}
	}
	eye := make([]float32, in*in)
	for i := range in {
		eye[i*in+i] = 1
	}
	w, err := e.b.WeightQuant(d, raw, out, in)
	if err != nil {
		e.t.Fatalf("WeightQuant(%v): %v", d, err)
	}
	defer e.b.Free(w)
	lb := label("%v identity·wᵀ", d)
	x, y := e.in(eye, in, in), e.out(in*out, in, out)
	e.b.Linear(y.t, x.t, w, gpu.Tensor{}, in)
	e.checkExact(lb, e.read(lb, y), want)
	e.done(lb)
}

// testQuantErrors: WeightQuant refuses bad sizes, and ops other than Linear refuse quantized
// tensors (the error comes back from Sync).
func testQuantErrors(e *env) {
	b := e.b
	for _, c := range []struct {
		d     gpu.DType
		bytes int
		shape []int
	}{
		{gpu.Q8_0, 33, []int{32}},       // short
		{gpu.Q8_0, 68, []int{2, 16}},    // rows not whole blocks
		{gpu.Q4_K, 145, []int{256}},     // long
		{gpu.F32, 4, []int{1}},          // not quantized
		{gpu.Q6_K, 210, nil},            // no shape
		{gpu.Q6_K, 210, []int{-1, 256}}, // negative
	} {
		if w, err := b.WeightQuant(c.d, make([]byte, c.bytes), c.shape...); err == nil {
			b.Free(w)
			e.t.Errorf("WeightQuant(%v, %d bytes, %v): no error", c.d, c.bytes, c.shape)
		}
	}
	d := e.o.Quant
	if len(d) == 0 {
		return
	}
	w, err := b.WeightQuant(d[0], randBlocks(e.r, d[0], 256), 1, 256)
	if err != nil {
		e.t.Fatalf("WeightQuant(%v): %v", d[0], err)
	}
	defer b.Free(w)
	x, y := e.in(e.randn(256, 0), 256), e.out(256, 256)
	b.Conv2D(y.t, x.t, w, gpu.Tensor{}, gpu.ConvParams{InC: 256, InH: 1, InW: 1, KH: 1, KW: 1})
	if b.Sync() == nil {
		e.t.Errorf("Conv2D with a %v kernel: no error", d[0])
	}
	b.Upload(w, make([]float32, 256))
	if b.Sync() == nil {
		e.t.Errorf("Upload into a %v weight: no error", d[0])
	}
	if b.Read(make([]float32, 256), w) == nil {
		e.t.Errorf("Read of a %v weight: no error", d[0])
	}
	e.free()
	// A view that starts inside a block is refused.
	xt, yt := e.in(e.randn(2*256, 0), 2, 256), e.out(2, 2, 1)
	wf, err := b.WeightQuant(d[0], randBlocks(e.r, d[0], 512), 512)
	if err != nil {
		e.t.Fatalf("WeightQuant(%v): %v", d[0], err)
	}
	defer b.Free(wf)
	b.Linear(yt.t, xt.t, wf.Slice(1, 257).Reshape(1, 256), gpu.Tensor{}, 2)
	if b.Sync() == nil {
		e.t.Errorf("Linear with a %v view from element 1: no error", d[0])
	}
	e.free()
}
