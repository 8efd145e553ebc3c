//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"
	"math"

	"kleinbild/gpu"
)

//go:embed linear.wgsl
var linearWGSL string

var (
	linearF32  = kernel{name: "linear", src: wloadF32 + linearWGSL, nOut: 1, nIn: 3}
	linearBF16 = kernel{name: "linear", src: wloadBF16 + linearWGSL, nOut: 1, nIn: 3}
)

// weightKernel picks the f32 or bf16 variant of a kernel by the weight's dtype.
func weightKernel(w gpu.Tensor, f32, bf16 *kernel) (*kernel, string) {
	if w.DType() == gpu.BF16 {
		return bf16, "bf16"
	}
	return f32, "f32"
}

// Linear computes y[rows, out] = x[rows, in]·wᵀ + bias with the variant of FamilyLinear
// the backend runs. A weight stored in several buffers (larger than one binding) runs as one
// product per run of rows within a buffer; x and y are bound whole (they are at most a
// binding each).
func (b *Backend) Linear(y, x, w, bias gpu.Tensor, rows int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckLinear(y, x, w, bias, rows); err != nil {
		b.fail(err)
		return
	}
	b.linear(y, x, w, rows, tail{bias: bias})
}

var _ gpu.LinearAdder = (*Backend)(nil)

// LinearAdd implements gpu.LinearAdder: y += s·x·wᵀ, Linear's kernels reading y in their
// epilogue (y + s·o, in float32).
func (b *Backend) LinearAdd(y, x, w gpu.Tensor, rows int, s float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckLinear(y, x, w, gpu.Tensor{}, rows); err != nil {
		b.fail(err)
		return
	}
	b.linear(y, x, w, rows, tail{add: true, s: s})
}

// tail is how a Linear kernel finishes an output o: o + bias (bias set), y + s·o (add), or o.
type tail struct {
	bias gpu.Tensor
	add  bool
	s    float32
}

// params are the kernels' bias-offset and mode fields for the columns from col: the bias
// binding's offset bb + col and mode 1 for a bias, s's bits and mode 2 for add, else mode 0.
func (t tail) params(bb uint32, col int) (off, mode uint32) {
	switch {
	case t.add:
		return math.Float32bits(t.s), 2
	case !t.bias.IsZero():
		return bb + uint32(col), 1
	}
	return bb + uint32(col), 0
}

// linear queues Linear (or LinearAdd, by t) on checked arguments.
func (b *Backend) linear(y, x, w gpu.Tensor, rows int, t tail) {
	out, in, _ := gpu.MatrixDims(w)
	if rows == 0 || out == 0 {
		return
	}
	xw, err := b.own("Linear", w)
	if err != nil {
		b.fail(err)
		return
	}
	cfg := specOf(FamilyLinear, b.linearShapeVariant(rows, out, in)).gemm
	for o0 := 0; o0 < out; {
		o1 := out
		if len(xw.bufs) > 1 && in > 0 {
			// rows of w in the chunk of row o0
			c := (w.Offset() + o0*in) / xw.chunkElems
			end := (c + 1) * xw.chunkElems
			o1 = min(out, (end-w.Offset())/in)
			if o1 <= o0 {
				b.fail(fmt.Errorf("webgpu: Linear: weight row %d spans two buffers", o0))
				return
			}
		}
		if cfg != nil {
			b.linearTiled(*cfg, y, x, w, t, rows, o0, o1)
		} else if w.DType().Quantized() {
			b.linearQuant(y, x, w, t, rows, o0, o1)
		} else {
			b.linearLegacy(y, x, w, t, rows, o0, o1)
		}
		o0 = o1
	}
}

// linearTiled queues columns [o0, o1) of Linear as products of the generated tile cfg (split
// into K slices with cfg.sk, gemm_splitk.go; a quantized weight dequantized as its tiles
// load, gemm_quant_wgsl.go).
func (b *Backend) linearTiled(cfg gemmCfg, y, x, w gpu.Tensor, t tail, rows, o0, o1 int) {
	_, in, _ := gpu.MatrixDims(w)
	cfg = gemmTile(cfg, rows, b.lim)
	blocks := gemmBlocks(cfg, rows, o1-o0, in, b.dispatchBound(FamilyLinear), int(b.lim.MaxComputeWorkgroupsPerDimension), false)
	if cfg.sk > 1 {
		b.linearSplit(cfg, blocks, y, x, w, t, o0)
		return
	}
	for _, bl := range blocks {
		b.linearBlock(cfg, bl, y, x, w, t, o0)
	}
}

// linearBlock queues block bl of columns from o0 of Linear as one product of tile cfg.
func (b *Backend) linearBlock(cfg gemmCfg, bl gemmBlock, y, x, w gpu.Tensor, t tail, o0 int) {
	out, in, _ := gpu.MatrixDims(w)
	r0, r1, c0, c1 := bl.m0, bl.m1, o0+bl.n0, o0+bl.n1
	c := b.newCall("Linear")
	yb := c.out(y, r0*out, r1*out) + uint32(r0*out+c0)
	xb := c.in(x, r0*in, r1*in) + uint32(r0*in)
	wb := c.in(w, c0*in, c1*in) + uint32(c0*in)
	bb, mode := t.params(c.in(t.bias, 0, out), c0)
	k, name := gemmKernel(b.linearKey(cfg, w, in, xb, wb, bl.interior, c1-c0, out, yb))
	c.run(k, name, []uint32{uint32(r1 - r0), uint32(c1 - c0), uint32(in), xb, wb, yb, bb, mode, uint32(out)},
		uint32((c1-c0+cfg.tn-1)/cfg.tn), uint32((r1-r0+cfg.tm-1)/cfg.tm), 1)
}

// linearKey is the form of tile cfg for Linear's operands: x (f32) at xb and the weight
// (f32, bf16 or quantized) at wb, rows of depth in, and n output columns of row stride ys from yb,
// stored a vec4 at a time (cfg.o4) where n, ys and yb are multiples of 4.
func (b *Backend) linearKey(cfg gemmCfg, w gpu.Tensor, in int, xb, wb uint32, interior bool, n, ys int, yb uint32) gemmKey {
	bf16 := w.DType() == gpu.BF16
	key := gemmKey{cfg: cfg, aKind: opF32, bKind: opF32, aVec: rowVec(cfg, false, in, xb),
		bVec: rowVec(cfg, bf16, in, wb), interior: interior, yVec: 1}
	if bf16 {
		key.bKind = opBF16
	}
	if w.DType().Quantized() {
		key.bKind, key.bQuant, key.bVec = opQuant, w.DType(), quantVec(cfg, in, wb)
	}
	if cfg.o4 && n%4 == 0 && ys%4 == 0 && yb%4 == 0 {
		key.yVec = 4
	}
	return key
}

// linearLegacy queues columns [o0, o1) of Linear with the first kernel (64×64 tiles,
// linear.wgsl), kept as a variant to measure the generated ones against.
func (b *Backend) linearLegacy(y, x, w gpu.Tensor, t tail, rows, o0, o1 int) {
	out, in, _ := gpu.MatrixDims(w)
	k, key := weightKernel(w, &linearF32, &linearBF16)
	maxRows := int(b.lim.MaxComputeWorkgroupsPerDimension) * 64
	for r0 := 0; r0 < rows; r0 += maxRows {
		r1 := min(rows, r0+maxRows)
		c := b.newCall("Linear")
		yb := c.out(y, r0*out, r1*out)
		xb := c.in(x, r0*in, r1*in)
		wb := c.in(w, o0*in, o1*in)
		bb, mode := t.params(c.in(t.bias, 0, out), o0)
		c.run(k, key, []uint32{uint32(r1 - r0), uint32(o1 - o0), uint32(in), xb + uint32(r0*in), yb + uint32(r0*out),
			wb + uint32(o0*in), bb, mode, uint32(out), uint32(o0)},
			uint32((o1-o0+63)/64), uint32((r1-r0+63)/64), 1)
	}
}

// legacyVariant names the first 64×64 kernels (linear.wgsl, conv.wgsl).
const legacyVariant = "t64x64-r4x4"

// linearVariants lists Linear's kernel variants, reference (the default) first: generated
// tiles (gemm_wgsl.go), then the first kernel. 128×128 tiles of 8×8 were the fastest on
// lavapipe (gemm_bench_test.go), with or without vec4 reads of workgroup memory (s4) within
// its noise; s4 comes first for real GPUs, where it issues a quarter of the shared-memory
// reads. Then the options of gemm_variants.go on the s4 tiles, for the tuner to pick on a
// real GPU: vec4 stores; warp tiles (128 threads in 64×64 warp tiles of 8×16 per thread, and
// 256 in 64×32 of 8×8); double-buffered workgroup memory; split K, a candidate only for the
// deep class (linearCandidates). An adapter drops the variants it cannot hold and runs the
// first left.
func linearVariants() []variantSpec {
	var v []variantSpec
	for _, c := range []gemmCfg{
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4, s4: true},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4, s4: true}, // the first that fits WebGPU's default limits
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4},
		{tm: 128, tn: 64, rm: 8, rn: 4, kt: 16, vec: 4},
		{tm: 64, tn: 128, rm: 4, rn: 8, kt: 16, vec: 4},
		{tm: 64, tn: 64, rm: 4, rn: 4, kt: 16, vec: 4},
		{tm: 128, tn: 64, rm: 8, rn: 4, kt: 16, vec: 1},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4, s4: true, o4: true},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4, s4: true, o4: true},
		{tm: 128, tn: 128, rm: 8, rn: 16, kt: 16, vec: 4, s4: true, o4: true, wy: 2, wx: 2},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4, s4: true, o4: true, wy: 2, wx: 4},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4, s4: true, o4: true, db: true},
		{tm: 128, tn: 128, rm: 8, rn: 16, kt: 8, vec: 4, s4: true, o4: true, wy: 2, wx: 2, db: true},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4, s4: true, o4: true, sk: 4},
		{tm: 64, tn: 128, rm: 4, rn: 8, kt: 16, vec: 4, s4: true, o4: true, sk: 4},
	} {
		v = append(v, c.spec())
	}
	return append(v, variantSpec{name: legacyVariant})
}
