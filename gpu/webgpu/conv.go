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

// Conv2D computes out = conv(in, w) + bias for one image, channels first, with the variant
// of FamilyConv the backend runs.
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
	if cfg := specOf(FamilyConv, b.Variant(FamilyConv)).gemm; cfg != nil {
		b.convTiled(*cfg, out, in, w, bias, p)
		return
	}
	b.convLegacy(out, in, w, bias, p)
}

// convTiled queues Conv2D as an implicit matrix product of the generated tile cfg: output
// channels × pixels, k = (channel, ky, kx), in dispatches over ranges of pixels.
func (b *Backend) convTiled(cfg gemmCfg, out, in, w, bias gpu.Tensor, p gpu.ConvParams) {
	outC, k, _ := gpu.MatrixDims(w)
	oh, ow := p.OutSize()
	npix := oh * ow
	if outC == 0 || npix == 0 {
		return
	}
	cfg = gemmTile(cfg, outC, b.lim)
	bf16 := w.DType() == gpu.BF16
	for _, bl := range gemmBlocks(cfg, outC, npix, k, b.dispatchBound(FamilyConv), int(b.lim.MaxComputeWorkgroupsPerDimension), true) {
		c := b.newCall("Conv2D")
		ob := c.out(out, bl.m0*npix, bl.m1*npix) + uint32(bl.m0*npix)
		ib := c.in(in, 0, p.InC*p.InH*p.InW)
		wb := c.in(w, bl.m0*k, bl.m1*k) + uint32(bl.m0*k)
		bb := c.in(bias, 0, outC) + uint32(bl.m0)
		key := gemmKey{cfg: cfg, aKind: opF32, bKind: opGather, aVec: rowVec(cfg, bf16, k, wb), bVec: 1,
			conv: true, interior: bl.interior}
		if bf16 {
			key.aKind = opBF16
		}
		kern, name := gemmKernel(key)
		c.run(kern, name, []uint32{uint32(bl.m1 - bl.m0), uint32(bl.n1 - bl.n0), uint32(k), wb, ib, ob + uint32(bl.n0),
			bb, bool32(!bias.IsZero()), uint32(npix), uint32(bl.n0), uint32(p.InC), uint32(p.InH), uint32(p.InW),
			uint32(p.KH), uint32(p.KW), uint32(p.Stride), uint32(p.PadTop), uint32(p.PadLeft), uint32(ow)},
			uint32((bl.n1-bl.n0+cfg.tn-1)/cfg.tn), uint32((bl.m1-bl.m0+cfg.tm-1)/cfg.tm), 1)
	}
}

// convLegacy queues Conv2D with the first kernel (64×64 tiles, conv.wgsl), kept as a
// variant to measure the generated ones against.
func (b *Backend) convLegacy(out, in, w, bias gpu.Tensor, p gpu.ConvParams) {
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

// convVariants lists Conv2D's kernel variants, reference (the default) first: generated
// tiles (gemm_wgsl.go; rows are output channels, columns pixels), then the first kernel.
// The order is by measured speed (lavapipe, gemm_bench_test.go).
func convVariants() []variantSpec {
	var v []variantSpec
	for _, c := range []gemmCfg{
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4, s4: true},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 8, vec: 4},
		{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4},
		{tm: 64, tn: 128, rm: 4, rn: 8, kt: 16, vec: 4},
		{tm: 128, tn: 64, rm: 8, rn: 4, kt: 16, vec: 4},
		{tm: 64, tn: 64, rm: 4, rn: 4, kt: 16, vec: 4},
		{tm: 64, tn: 128, rm: 4, rn: 8, kt: 16, vec: 1},
	} {
		v = append(v, c.spec())
	}
	return append(v, variantSpec{name: legacyVariant})
}
