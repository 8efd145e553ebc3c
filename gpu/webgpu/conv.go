//go:build cgo

package webgpu

import (
	_ "embed"

	"kleinbild/gpu"
)

//go:embed conv.wgsl
var convWGSL string

var (
	convF32  = kernel{name: "conv", src: wloadF32 + convWGSL, nOut: 1, nIn: 3}
	convBF16 = kernel{name: "conv", src: wloadBF16 + convWGSL, nOut: 1, nIn: 3}
)

// Conv2D computes out = conv(in, w) + bias for one image, channels first. Output channels
// are split into dispatches of at most 65535·64 pixels' worth of workgroups.
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
	k2, key := weightKernel(w, &convF32, &convBF16)
	maxPix := int(b.lim.MaxComputeWorkgroupsPerDimension) * 64
	if npix > maxPix {
		b.fail(errDimsf("Conv2D: %d output pixels exceed %d", npix, maxPix))
		return
	}
	c := b.newCall("Conv2D")
	ob := c.out(out, 0, outC*npix)
	ib := c.in(in, 0, p.InC*p.InH*p.InW)
	wb := c.in(w, 0, outC*k)
	bb := c.in(bias, 0, outC)
	c.run(k2, key, []uint32{uint32(outC), uint32(npix), uint32(k), ib, ob, wb, bb, bool32(!bias.IsZero()),
		uint32(p.InH), uint32(p.InW), uint32(p.KH), uint32(p.KW), uint32(p.Stride), uint32(p.PadTop), uint32(p.PadLeft), uint32(ow)},
		uint32((npix+63)/64), uint32((outC+63)/64), 1)
}

// convVariants lists Conv2D's kernel variants, reference first.
func convVariants() []variantSpec { return []variantSpec{{name: "t64x64-r4x4"}} }
