//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"strings"

	"kleinbild/gpu"
)

// fastConvKernel is the fast Conv2D's kernel on this device: convcm on matrix units, else
// its twin convf16 (Backend.fastForce, when it names a conv kernel, forces one).
func (b *Backend) fastConvKernel() string {
	if strings.HasPrefix(b.fastForce, "conv") {
		return b.fastForce
	}
	if b.units != nil {
		return "convcm"
	}
	return "convf16"
}

// fastConv queues the fast Conv2D on checked arguments (convf16.glsl): the input's channel
// scales (rowscale.comp over InC rows of InH·InW values), then the implicit GEMM on float16
// operands with float32 sums, in the tiles of conv.comp.
func (b *Backend) fastConv(out, in, w, bias gpu.Tensor, p gpu.ConvParams, outC, k, npix, ow int) {
	scales := b.rowScales("Conv2D", in, p.InC, p.InH*p.InW)
	if scales == nil {
		return
	}
	c := b.newCall("Conv2D")
	ob := c.out(out, outC*npix)
	ib := c.in(in, p.InC*p.InH*p.InW)
	wb := c.in(w, outC*k)
	bb := c.in(bias, outC)
	c.raw(scales)
	c.run(b.fastConvKernel(), []uint32{uint32(outC), uint32(npix), uint32(k), ib, ob, wb, bb, bool32(!bias.IsZero()),
		uint32(p.InH), uint32(p.InW), uint32(p.KH), uint32(p.KW), uint32(p.Stride), uint32(p.PadTop), uint32(p.PadLeft),
		uint32(ow), bool32(w.DType() == gpu.BF16), uint32(p.InC), 0},
		uint32((npix+63)/64), uint32((outC+63)/64), 1)
}
