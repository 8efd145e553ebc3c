//go:build cgo

package webgpu

import (
	"kleinbild/gpu"
)

// Split K (gemmCfg.sk): a Linear of few row tiles and a deep K runs as one workgroup per
// output tile and K slice, each slice's partial sums written to a buffer of their own, then a
// second pass sums the slices in order and finishes each output as Linear does (bias, or
// y + s·o for LinearAdd). Each slice sums its products in k order in float32; the slices are
// added in slice order.

// minSliceK is the least K per slice: a slice's partial sums cost 8 bytes of traffic per
// output (written, read back), against 2·K FLOPs.
const minSliceK = 256

// maxSplitBytes bounds the partial sums of one split product (also bounded by the device's
// binding and buffer sizes).
const maxSplitBytes = 256 << 20

// splitSlices returns the slices and the K per slice (a multiple of kt) for a product of
// outputs values of depth k under cfg within maxBytes of partial sums: 1 and k for none.
func splitSlices(cfg gemmCfg, k, outputs int, maxBytes uint64) (slices, ks int) {
	s := min(cfg.sk, k/minSliceK)
	for s > 1 && uint64(s)*uint64(outputs)*4 > maxBytes {
		s--
	}
	if s <= 1 {
		return 1, k
	}
	ks = ((k+s-1)/s + cfg.kt - 1) / cfg.kt * cfg.kt
	return (k + ks - 1) / ks, ks
}

// reduceWGSL sums a split product's slices: Y[yb + r·ys + c] = Σ_z S[sb + z·zs + r·n + c],
// plus the bias C[cb + c] (hasC 1), or Y + s·sum with s's bits in cb (hasC 2).
const reduceWGSL = `struct P { n: u32, count: u32, slices: u32, zs: u32, sb: u32, yb: u32, ys: u32, cb: u32, hasC: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<storage, read> S: array<f32>;
@group(0) @binding(3) var<storage, read> C: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let i = (wg.y * nw.x + wg.x) * 256u + li;
	if (i >= p.count) { return; }
	let r = i / p.n;
	let c = i - r * p.n;
	var o = S[p.sb + i];
	for (var z = 1u; z < p.slices; z++) { o = o + S[p.sb + z * p.zs + i]; }
	let yi = p.yb + r * p.ys + c;
	if (p.hasC == 1u) { o = o + C[p.cb + c]; }
	if (p.hasC == 2u) { o = Y[yi] + bitcast<f32>(p.cb) * o; }
	Y[yi] = o;
}
`

var splitReduce = kernel{name: "linear-reduce", src: reduceWGSL, nOut: 1, nIn: 2}

// splitBudget is the most bytes of partial sums a split product may use on this device.
func (b *Backend) splitBudget() uint64 {
	return min(uint64(maxSplitBytes), b.lim.MaxStorageBufferBindingSize, b.lim.MaxBufferSize)
}

// linearSplit queues blocks (interior and edges, gemmBlocks) of columns [o0, o1) of Linear
// under a split-K cfg: each block as a product of slices into a partial-sum buffer and a
// reduction into y. A block too shallow to split runs as linearBlock. The partial sums of
// every block go to the backend's one split buffer (splitBuffer): the dispatches, of these
// blocks and of later products, run in queue order.
func (b *Backend) linearSplit(cfg gemmCfg, blocks []gemmBlock, y, x, w gpu.Tensor, t tail, o0 int) {
	_, in, _ := gpu.MatrixDims(w)
	budget := b.splitBudget()
	need := 0
	for _, bl := range blocks {
		outputs := (bl.m1 - bl.m0) * (bl.n1 - bl.n0)
		if s, _ := splitSlices(cfg, in, outputs, budget); s > 1 {
			need = max(need, s*outputs)
		}
	}
	var part gpu.Tensor
	if need > 0 {
		buf, err := b.splitBuffer(need, budget)
		if err != nil {
			b.fail(err)
			return
		}
		part = gpu.NewTensor(buf, 0, gpu.F32, need)
	}
	for _, bl := range blocks {
		outputs := (bl.m1 - bl.m0) * (bl.n1 - bl.n0)
		s, ks := splitSlices(cfg, in, outputs, budget)
		if s <= 1 {
			b.linearBlock(cfg, bl, y, x, w, t, o0)
			continue
		}
		b.splitBlock(cfg, bl, s, ks, part, y, x, w, t, o0)
	}
}

// splitBlock queues block bl as s slices of ks into part, then their reduction into y.
func (b *Backend) splitBlock(cfg gemmCfg, bl gemmBlock, s, ks int, part, y, x, w gpu.Tensor, t tail, o0 int) {
	out, in, _ := gpu.MatrixDims(w)
	r0, r1, c0, c1 := bl.m0, bl.m1, o0+bl.n0, o0+bl.n1
	bm, bn := r1-r0, c1-c0
	n := s * bm * bn
	c := b.newCall("Linear")
	pb := c.out(part, 0, n)
	xb := c.in(x, r0*in, r1*in) + uint32(r0*in)
	wb := c.in(w, c0*in, c1*in) + uint32(c0*in)
	c.in(gpu.Tensor{}, 0, 0)
	key := b.linearKey(cfg, w, in, xb, wb, bl.interior, bn, bn, pb)
	key.split = true
	k, name := gemmKernel(key)
	params := make([]uint32, 21)
	copy(params, []uint32{uint32(bm), uint32(bn), uint32(in), xb, wb, pb, 0, 0, uint32(bn)})
	params[19], params[20] = uint32(ks), uint32(bm*bn)
	c.run(k, name, params, uint32((bn+cfg.tn-1)/cfg.tn), uint32((bm+cfg.tm-1)/cfg.tm), uint32(s))

	r := b.newCall("Linear")
	yb := r.out(y, r0*out, r1*out)
	sb := r.in(part, 0, n)
	cb, mode := t.params(r.in(t.bias, 0, out), c0)
	gx, gy := b.grid((bm*bn + 255) / 256)
	r.run(&splitReduce, "reduce", []uint32{uint32(bn), uint32(bm * bn), uint32(s), uint32(bm * bn), sb,
		yb + uint32(r0*out+c0), uint32(out), cb, mode}, gx, gy, 1)
}

// splitPool holds the partial-sum buffer of split products, one per backend, so that a
// Linear does not create (and wgpu zero-fill) a buffer of up to maxSplitBytes per call.
type splitPool struct {
	buf    *buffer
	allocs int // buffers created (tests count them)
}

// splitBuffer returns the split buffer, grown to at least n values (and at least twice its
// old size, within budget bytes) when smaller; the old one is released once the work
// queued on it has run (releaseBuffer).
func (b *Backend) splitBuffer(n int, budget uint64) (*buffer, error) {
	p := &b.split
	if p.buf != nil && !p.buf.freed && p.buf.bytes >= int64(n)*4 {
		return p.buf, nil
	}
	if p.buf != nil {
		n = max(n, int(min(uint64(p.buf.bytes/4)*2, budget/4)))
		b.releaseBuffer(p.buf)
		p.buf = nil
	}
	buf, err := b.newBuffer(gpu.F32, n, 0)
	if err != nil {
		return nil, err
	}
	p.buf = buf
	p.allocs++
	return buf, nil
}

// releaseSplit frees the split buffer (Close).
func (b *Backend) releaseSplit() {
	if b.split.buf != nil {
		b.releaseBuffer(b.split.buf)
		b.split.buf = nil
	}
}
