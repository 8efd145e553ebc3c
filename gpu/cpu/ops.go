package cpu

import "kleinbild/gpu"

// The gpu.Backend operations: each validates its arguments with the gpu.Check* functions,
// resolves its tensors to host slices (recording the first problem for Read/Flush/Sync and
// returning) and runs the Go kernel synchronously.

// span is the number of values rows rows of width values, stride apart, address.
func span(rows, stride, width int) int {
	if rows <= 0 {
		return 0
	}
	return (rows-1)*stride + width
}

// Linear implements gpu.Backend (bf16 weights widened in tiles, or multiplied natively by a
// BF16MatMuler provider).
func (b *Backend) Linear(y, x, w, bias gpu.Tensor, rows int) {
	if ys, xs, bs, m, ok := b.linearArgs("Linear", y, x, w, bias, rows); ok {
		b.linear(ys, xs, rows, m, bs)
	}
}

var _ gpu.LinearAdder = (*Backend)(nil)

// LinearAdd implements gpu.LinearAdder: y += s·x·wᵀ as one Sgemm per weight tile with beta 1
// (bf16 weights widened into the tiles, also on a BF16MatMuler, whose product cannot add).
func (b *Backend) LinearAdd(y, x, w gpu.Tensor, rows int, s float32) {
	if ys, xs, _, m, ok := b.linearArgs("LinearAdd", y, x, w, gpu.Tensor{}, rows); ok {
		b.linearScaled(ys, xs, rows, m, s, 1)
	}
}

// linearArgs checks and resolves the tensors of a Linear-shaped op: y and x cut to the rows
// given, bias to the weight's outputs (nil for none); ok is false after recording a problem.
func (b *Backend) linearArgs(op string, y, x, w, bias gpu.Tensor, rows int) (ys, xs, bs []float32, m matrix, ok bool) {
	if b.fail(gpu.CheckLinear(y, x, w, bias, rows)) {
		return nil, nil, nil, matrix{}, false
	}
	a := b.args(op)
	m = a.matrix("weight", w)
	xs, ys, bs = a.in("x", x), a.out("y", y), a.opt("bias", bias)
	a.disjoint("y", y, rows*m.out, "x", x, rows*m.in)
	if a.failed() {
		return nil, nil, nil, matrix{}, false
	}
	if bs != nil {
		bs = bs[:m.out]
	}
	return ys[:rows*m.out], xs[:rows*m.in], bs, m, true
}

// Attention implements gpu.Backend.
func (b *Backend) Attention(out, q, k, v gpu.Tensor, p gpu.AttnParams) {
	p = p.WithDefaults()
	if b.fail(gpu.CheckAttention(out, q, k, v, p)) || p.SeqQ == 0 {
		return
	}
	a := b.args("Attention")
	qs, ks, vs, os := a.in("q", q), a.in("k", k), a.in("v", v), a.out("out", out)
	width, kvWidth := p.Heads*p.HeadDim, p.KVHeads*p.HeadDim
	on := span(p.SeqQ, p.OutStride, width)
	a.disjoint("out", out, on, "q", q, span(p.SeqQ, p.QStride, width))
	a.disjoint("out", out, on, "k", k, span(p.SeqK, p.KStride, kvWidth))
	a.disjoint("out", out, on, "v", v, span(p.SeqK, p.VStride, kvWidth))
	if a.failed() {
		return
	}
	b.attention(os, qs, ks, vs, p)
}

// RMSNorm implements gpu.Backend.
func (b *Backend) RMSNorm(y, x, weight gpu.Tensor, rows, dim int, eps float32) {
	if b.fail(gpu.CheckRows("RMSNorm", y, x, rows, dim, weight)) {
		return
	}
	a := b.args("RMSNorm")
	xs, ys, ws := a.in("x", x), a.out("y", y), a.opt("weight", weight)
	if a.failed() {
		return
	}
	if ws != nil {
		ws = ws[:dim]
	}
	b.rmsNorm(ys[:rows*dim], xs[:rows*dim], rows, dim, eps, ws)
}

// HeadRMSNorm implements gpu.Backend.
func (b *Backend) HeadRMSNorm(x, weight gpu.Tensor, rows, stride, heads, headDim int, eps float32) {
	if b.fail(gpu.CheckHeadRMSNorm(x, weight, rows, stride, heads, headDim)) || rows == 0 || heads == 0 {
		return
	}
	a := b.args("HeadRMSNorm")
	xs, ws := a.out("x", x), a.opt("weight", weight)
	if a.failed() {
		return
	}
	if ws != nil {
		ws = ws[:headDim]
	}
	b.headRMSNorm(xs, rows, stride, heads, headDim, eps, ws)
}

// LayerNorm implements gpu.Backend: the LayerNorm kernel with weight 1 + scale (computed in
// float32) and bias shift, as FLUX.2's modulated norm.
func (b *Backend) LayerNorm(y, x, scale, shift gpu.Tensor, rows, dim int, eps float32) {
	if b.fail(gpu.CheckRows("LayerNorm", y, x, rows, dim, scale, shift)) {
		return
	}
	a := b.args("LayerNorm")
	xs, ys, sc, sh := a.in("x", x), a.out("y", y), a.opt("scale", scale), a.opt("shift", shift)
	if a.failed() {
		return
	}
	var weight []float32
	if sc != nil {
		buf := b.vectors.get(dim)
		defer b.vectors.put(buf)
		weight = *buf
		for i, s := range sc[:dim] {
			weight[i] = 1 + s
		}
	}
	if sh != nil {
		sh = sh[:dim]
	}
	b.layerNorm(ys[:rows*dim], xs[:rows*dim], rows, dim, eps, weight, sh)
}

// GroupNorm implements gpu.Backend.
func (b *Backend) GroupNorm(y, x, gamma, beta gpu.Tensor, channels, hw, groups int, eps float32) {
	if b.fail(gpu.CheckGroupNorm(y, x, gamma, beta, channels, hw, groups)) {
		return
	}
	a := b.args("GroupNorm")
	xs, ys, gs, bs := a.in("x", x), a.out("y", y), a.opt("gamma", gamma), a.opt("beta", beta)
	if a.failed() {
		return
	}
	b.groupNorm(ys[:channels*hw], xs[:channels*hw], channels, hw, groups, eps, gs, bs)
}

// SiLU implements gpu.Backend.
func (b *Backend) SiLU(y, x gpu.Tensor) {
	if b.fail(gpu.CheckSame("SiLU", y, x)) {
		return
	}
	a := b.args("SiLU")
	xs, ys := a.in("x", x), a.out("y", y)
	if a.failed() {
		return
	}
	b.silu(ys, xs)
}

// SwiGLU implements gpu.Backend.
func (b *Backend) SwiGLU(y, x gpu.Tensor, rows, hidden, xStride, yStride int) {
	if xStride == 0 {
		xStride = 2 * hidden
	}
	if yStride == 0 {
		yStride = hidden
	}
	if b.fail(gpu.CheckSwiGLU(y, x, rows, hidden, xStride, yStride)) || rows == 0 || hidden == 0 {
		return
	}
	a := b.args("SwiGLU")
	xs, ys := a.in("x", x), a.out("y", y)
	a.disjoint("y", y, span(rows, yStride, hidden), "x", x, span(rows, xStride, 2*hidden))
	if a.failed() {
		return
	}
	b.swiGLU(ys, xs, rows, hidden, xStride, yStride)
}

// Add implements gpu.Backend.
func (b *Backend) Add(y, p, q gpu.Tensor) {
	if b.fail(gpu.CheckSame("Add", y, p, q)) {
		return
	}
	a := b.args("Add")
	ps, qs, ys := a.in("a", p), a.in("b", q), a.out("y", y)
	if a.failed() {
		return
	}
	b.add(ys, ps, qs)
}

// Mul implements gpu.Backend.
func (b *Backend) Mul(y, p, q gpu.Tensor) {
	if b.fail(gpu.CheckSame("Mul", y, p, q)) {
		return
	}
	a := b.args("Mul")
	ps, qs, ys := a.in("a", p), a.in("b", q), a.out("y", y)
	if a.failed() {
		return
	}
	b.mul(ys, ps, qs)
}

// GatedAdd implements gpu.Backend.
func (b *Backend) GatedAdd(x, y, gate gpu.Tensor, rows, dim int) {
	if b.fail(gpu.CheckGatedAdd(x, y, gate, rows, dim)) {
		return
	}
	a := b.args("GatedAdd")
	ys, gs, xs := a.in("y", y), a.in("gate", gate), a.out("x", x)
	if a.failed() {
		return
	}
	b.gatedAdd(xs[:rows*dim], ys[:rows*dim], rows, dim, gs)
}

// AddScaled implements gpu.Backend.
func (b *Backend) AddScaled(y, x gpu.Tensor, s float32) {
	if b.fail(gpu.CheckSame("AddScaled", y, x)) {
		return
	}
	a := b.args("AddScaled")
	xs, ys := a.in("x", x), a.out("y", y)
	if a.failed() {
		return
	}
	b.addScaled(ys, xs, s)
}

// Guidance implements gpu.Backend.
func (b *Backend) Guidance(cond, uncond gpu.Tensor, scale float32) {
	if b.fail(gpu.CheckSame("Guidance", cond, uncond)) {
		return
	}
	a := b.args("Guidance")
	us, cs := a.in("uncond", uncond), a.out("cond", cond)
	if a.failed() {
		return
	}
	b.guidance(cs, us, scale)
}

// Copy implements gpu.Backend (F32 or BF16 tensors).
func (b *Backend) Copy(dst, src gpu.Tensor) {
	if b.fail(gpu.CheckCopy(dst, src)) {
		return
	}
	a := b.args("Copy")
	sm, dm := a.buf("src", src), a.buf("dst", dst)
	if a.err == nil && dm.weight {
		a.set("dst %v is a read-only weight", dst)
	}
	if a.failed() {
		return
	}
	so, do, n := src.Offset(), dst.Offset(), src.Len()
	if src.DType() == gpu.BF16 {
		copy(dm.bf16[do:do+n], sm.bf16[so:so+n])
	} else {
		copy(dm.f32[do:do+n], sm.f32[so:so+n])
	}
}

// RoPE implements gpu.Backend.
func (b *Backend) RoPE(x, cos, sin gpu.Tensor, seq, heads, headDim, stride int, interleaved bool) {
	if b.fail(gpu.CheckRoPE(x, cos, sin, seq, heads, headDim, stride)) || seq == 0 || heads == 0 {
		return
	}
	a := b.args("RoPE")
	cs, ss, xs := a.in("cos", cos), a.in("sin", sin), a.out("x", x)
	a.disjoint("x", x, span(seq, stride, heads*headDim), "cos", cos, seq*headDim)
	a.disjoint("x", x, span(seq, stride, heads*headDim), "sin", sin, seq*headDim)
	if a.failed() {
		return
	}
	b.rope(xs, seq, heads, headDim, stride, cs, ss, interleaved)
}

// Conv2D implements gpu.Backend.
func (b *Backend) Conv2D(out, in, w, bias gpu.Tensor, p gpu.ConvParams) {
	p = p.WithDefaults()
	if b.fail(gpu.CheckConv2D(out, in, w, bias, p)) {
		return
	}
	a := b.args("Conv2D")
	m := a.matrix("kernel", w)
	is, os, bs := a.in("in", in), a.out("out", out), a.opt("bias", bias)
	oh, ow := p.OutSize()
	a.disjoint("out", out, m.out*oh*ow, "in", in, p.InC*p.InH*p.InW)
	if a.failed() {
		return
	}
	if bs != nil {
		bs = bs[:m.out]
	}
	b.conv2D(os[:m.out*oh*ow], is[:p.InC*p.InH*p.InW], m, bs, p)
}

// UpsampleNearest2x implements gpu.Backend.
func (b *Backend) UpsampleNearest2x(y, x gpu.Tensor, channels, h, w int) {
	n := channels * h * w
	if b.fail(gpu.CheckImage("UpsampleNearest2x", y, x, n, 4*n, channels, h, w)) {
		return
	}
	a := b.args("UpsampleNearest2x")
	xs, ys := a.in("x", x), a.out("y", y)
	a.disjoint("y", y, 4*n, "x", x, n)
	if a.failed() {
		return
	}
	b.upsampleNearest2x(ys[:4*n], xs[:n], channels, h, w)
}

// Transpose implements gpu.Backend.
func (b *Backend) Transpose(y, x gpu.Tensor, rows, cols int) {
	n := rows * cols
	if b.fail(gpu.CheckImage("Transpose", y, x, n, n, rows, cols)) {
		return
	}
	a := b.args("Transpose")
	xs, ys := a.in("x", x), a.out("y", y)
	a.disjoint("y", y, n, "x", x, n)
	if a.failed() {
		return
	}
	b.transpose(ys[:n], xs[:n], rows, cols)
}

// Patchify implements gpu.Backend.
func (b *Backend) Patchify(y, x gpu.Tensor, c, h, w int) { b.patch(y, x, c, h, w, false) }

// Unpatchify implements gpu.Backend.
func (b *Backend) Unpatchify(y, x gpu.Tensor, c, h, w int) { b.patch(y, x, c, h, w, true) }

func (b *Backend) patch(y, x gpu.Tensor, c, h, w int, inverse bool) {
	if b.fail(gpu.CheckPatchify(y, x, c, h, w, inverse)) {
		return
	}
	op := "Patchify"
	if inverse {
		op = "Unpatchify"
	}
	n := c * h * w
	a := b.args(op)
	xs, ys := a.in("x", x), a.out("y", y)
	a.disjoint("y", y, n, "x", x, n)
	if a.failed() {
		return
	}
	if inverse {
		b.unpatchify(ys[:n], xs[:n], c, h, w)
	} else {
		b.patchify(ys[:n], xs[:n], c, h, w)
	}
}

// BatchNorm implements gpu.Backend.
func (b *Backend) BatchNorm(y, x, mean, std gpu.Tensor, channels, hw int, inverse bool) {
	if b.fail(gpu.CheckBatchNorm(y, x, mean, std, channels, hw)) {
		return
	}
	a := b.args("BatchNorm")
	xs, ms, ss, ys := a.in("x", x), a.in("mean", mean), a.in("std", std), a.out("y", y)
	if a.failed() {
		return
	}
	b.batchNorm(ys[:channels*hw], xs[:channels*hw], ms[:channels], ss[:channels], channels, hw, inverse)
}
