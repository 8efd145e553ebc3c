//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math"

	"kleinbild/gpu"
)

var _ gpu.LinearAdder = (*Backend)(nil)

// Linear computes y[rows, out] = x[rows, in]·wᵀ + bias (linear.comp).
func (b *Backend) Linear(y, x, w, bias gpu.Tensor, rows int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckLinear(y, x, w, bias, rows); err != nil {
		b.fail(err)
		return
	}
	mode := uint32(0)
	if !bias.IsZero() {
		mode = 1
	}
	b.linear(y, x, w, bias, rows, mode, 0)
}

// LinearAdd implements gpu.LinearAdder: y += s·x·wᵀ, the kernel reading y in its epilogue.
func (b *Backend) LinearAdd(y, x, w gpu.Tensor, rows int, s float32) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckLinear(y, x, w, gpu.Tensor{}, rows); err != nil {
		b.fail(err)
		return
	}
	b.linear(y, x, w, gpu.Tensor{}, rows, 2, math.Float32bits(s))
}

// linear queues linear.comp on checked arguments, in blocks of rows and of outputs small
// enough that each operand's window fits one binding of the device (and the rows the
// workgroups per dimension): 128 × 128 outputs per workgroup (linear128.comp) where the
// product has that many rows and outputs, else 64 × 64 (linear.comp; linearq.comp for
// quantized weights). The 128-wide tile on bf16 weights with k a multiple of 8 runs the
// vector-load kernels instead (linearVec; linearv.glsl, WebGPU's default tile).
func (b *Backend) linear(y, x, w, bias gpu.Tensor, rows int, mode, sbits uint32) {
	out, in, _ := gpu.MatrixDims(w)
	if rows == 0 || out == 0 {
		return
	}
	kernel, tile := b.linearKernel(w.DType(), rows, out)
	fast := b.fast && w.DType() == gpu.BF16
	if fast {
		kernel, tile = b.fastKernel(), 64
	}
	// linearv.comp's vector loads: bf16 weights, k a multiple of 8 (and aligned offsets)
	vec := kernel == "linear128" && w.DType() == gpu.BF16 && in%8 == 0 && !b.linearScalar
	room := int(b.pd.lim.maxStorageRange - 2*max(b.pd.lim.storageAlign, 4))
	rowsPer := min(int(b.pd.lim.maxGroups[1])*tile, room/(4*max(in, out, 1)))
	if tile == 4 {
		rowsPer = min(rowsPer, 8) // linearsmall's rows
	}
	colsPer := min(out, room/max(int(w.DType().PackedBytes(in)), 1))
	if w.DType().Quantized() {
		colsPer = out // bound whole (WeightQuant keeps it within one binding)
	}
	if rowsPer < 1 || colsPer < 1 {
		b.fail(fmt.Errorf("vulkan: Linear: a row of %d values exceeds the %s one kernel argument may bind on %s", max(in, out), gb(int64(room)), b.pd.info.Name))
		return
	}
	for r0 := 0; r0 < rows; r0 += rowsPer {
		r1 := min(rows, r0+rowsPer)
		var scales *buffer
		if fast {
			if scales = b.rowScales("Linear", x.Slice(r0*in, r1*in), r1-r0, in); scales == nil {
				return
			}
		}
		for o0 := 0; o0 < out; o0 += colsPer {
			o1 := min(out, o0+colsPer)
			gx, gy := uint32((o1-o0+tile-1)/tile), uint32((r1-r0+tile-1)/tile)
			if tile == 4 { // linearsmall: one workgroup per 4 outputs, all rows
				gx, gy = b.grid((o1 - o0 + 3) / 4)
			}
			c := b.newCall("Linear")
			yb := c.out(y.Slice(r0*out, r1*out), (r1-r0)*out) + uint32(o0)
			xb := c.in(x.Slice(r0*in, r1*in), (r1-r0)*in)
			wb := c.in(w.Slice(o0*in, o1*in), (o1-o0)*in)
			bb := uint32(0)
			if !bias.IsZero() {
				bb = c.in(bias, out) + uint32(o0)
			} else {
				c.in(gpu.Tensor{}, 0)
			}
			if mode == 2 {
				bb = sbits
			}
			last := weightKind(w.DType())
			if fast {
				c.raw(scales)
				last = 0 // the scales' index of row r0
			}
			params := []uint32{uint32(r1 - r0), uint32(o1 - o0), uint32(in), xb, yb, wb, bb, mode, uint32(out), last}
			if vec && xb%4 == 0 && wb%8 == 0 {
				b.linearVec(c, params)
				continue
			}
			c.run(kernel, params, gx, gy, 1)
		}
	}
}

// linearVec queues linear128.comp's product with params (its push constants for a block of
// rows × n outputs) on the vector-load kernels: linearvi.comp on the whole 128 × 128 tiles
// (where k is a multiple of its step, 16), linearv.comp with bounds checks on the partial
// ones to their right and below, each a dispatch of its own with offsets moved to its first
// row and output. On lavapipe (the side-by-side benchmark, 3 runs at 256×3072→3072 and
// 768×9216→3072) they did 2.9–3.9 GFLOP per CPU second against linear128.comp's 1.6–2.5 and
// WebGPU's 4.6–6.2; in wall time 0.9–1.9 GFLOP/s against 0.7–2.0 and 3.9–7.3, this backend's
// lavapipe threads getting less of the CPU (attention.go).
func (b *Backend) linearVec(c *call, params []uint32) {
	rows, n, k := params[0], params[1], params[2]
	ri, ni := rows/128*128, n/128*128
	if k%16 != 0 { // a partial step of k: no interior
		ri, ni = 0, 0
	}
	part := func(kernel string, r0, r1, n0, n1 uint32) {
		if r1 <= r0 || n1 <= n0 {
			return
		}
		q := append([]uint32(nil), params...)
		q[0], q[1] = r1-r0, n1-n0
		q[3] += r0 * k            // x
		q[4] += r0*params[8] + n0 // y
		q[5] += n0 * k            // w
		if params[7] == 1 {       // the bias (mode 2 holds the scale there)
			q[6] += n0
		}
		c.run(kernel, q, (n1-n0+127)/128, (r1-r0+127)/128, 1)
	}
	part("linearvi", 0, ri, 0, ni)
	part("linearv", 0, ri, ni, n)
	part("linearv", ri, rows, 0, n)
}

// linearKernel picks Linear's kernel and its tile (outputs per workgroup side; 4 for
// linearsmall, which takes every row): at most 8 rows linearsmall, 128 rows and outputs
// linear128, else linear (quantized weights: the q variants). Backend.linearTile forces one
// (8: linearsmall, over blocks of 8 rows).
func (b *Backend) linearKernel(d gpu.DType, rows, out int) (string, int) {
	q := ""
	if d.Quantized() {
		q = "q"
	}
	switch {
	case b.linearTile == 8 || (b.linearTile == 0 && rows <= 8):
		return "linearsmall" + q, 4
	case q == "" && (b.linearTile == 128 || (b.linearTile == 0 && rows >= 128 && out >= 128)):
		return "linear128", 128
	}
	return "linear" + q, 64
}

// weightKind is the wload kind of gemm.glsl for a weight dtype: 0 f32, 1 bf16, 2 + the
// index of a quantized type from Q4_0.
func weightKind(d gpu.DType) uint32 {
	switch {
	case d == gpu.BF16:
		return 1
	case d.Quantized():
		return 2 + uint32(d-gpu.Q4_0)
	}
	return 0
}

// Conv2D computes out = conv(in, w) + bias for one image (conv.comp; in the fast precision
// convcm.comp or its twin, fastConv).
func (b *Backend) Conv2D(out, in, w, bias gpu.Tensor, p gpu.ConvParams) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	p = p.WithDefaults()
	if err := gpu.CheckConv2D(out, in, w, bias, p); err != nil {
		b.fail(err)
		return
	}
	outC, k, _ := gpu.MatrixDims(w)
	oh, ow := p.OutSize()
	npix := oh * ow
	if outC == 0 || npix == 0 {
		return
	}
	if b.fast {
		b.fastConv(out, in, w, bias, p, outC, k, npix, ow)
		return
	}
	c := b.newCall("Conv2D")
	ob := c.out(out, outC*npix)
	ib := c.in(in, p.InC*p.InH*p.InW)
	wb := c.in(w, outC*k)
	bb := c.in(bias, outC)
	c.run("conv", []uint32{uint32(outC), uint32(npix), uint32(k), ib, ob, wb, bb, bool32(!bias.IsZero()),
		uint32(p.InH), uint32(p.InW), uint32(p.KH), uint32(p.KW), uint32(p.Stride), uint32(p.PadTop), uint32(p.PadLeft),
		uint32(ow), bool32(w.DType() == gpu.BF16)},
		uint32((npix+63)/64), uint32((outC+63)/64), 1)
}
