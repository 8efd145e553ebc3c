//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"

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

// Linear computes y[rows, out] = x[rows, in]·wᵀ + bias. A weight stored in several buffers
// (larger than one binding) runs as one product per run of rows within a buffer; x and y are
// bound whole (they are at most a binding each).
func (b *Backend) Linear(y, x, w, bias gpu.Tensor, rows int) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	if err := gpu.CheckLinear(y, x, w, bias, rows); err != nil {
		b.fail(err)
		return
	}
	out, in, _ := gpu.MatrixDims(w)
	if rows == 0 || out == 0 {
		return
	}
	xw, err := b.own("Linear", w)
	if err != nil {
		b.fail(err)
		return
	}
	k, key := weightKernel(w, &linearF32, &linearBF16)
	maxRows := int(b.lim.MaxComputeWorkgroupsPerDimension) * 64
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
		for r0 := 0; r0 < rows; r0 += maxRows {
			r1 := min(rows, r0+maxRows)
			c := b.newCall("Linear")
			yb := c.out(y, r0*out, r1*out)
			xb := c.in(x, r0*in, r1*in)
			wb := c.in(w, o0*in, o1*in)
			bb := c.in(bias, 0, out)
			c.run(k, key, []uint32{uint32(r1 - r0), uint32(o1 - o0), uint32(in), xb + uint32(r0*in), yb + uint32(r0*out),
				wb + uint32(o0*in), bb + uint32(o0), bool32(!bias.IsZero()), uint32(out), uint32(o0)},
				uint32((o1-o0+63)/64), uint32((r1-r0+63)/64), 1)
		}
		o0 = o1
	}
}

// linearVariants lists Linear's kernel variants, reference first.
func linearVariants() []variantSpec { return []variantSpec{{name: "t64x64-r4x4"}} }
