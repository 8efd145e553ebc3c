//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"
	"strings"

	"kleinbild/gpu"
)

//go:embed attention.wgsl
var attentionWGSL string

//go:embed attention_tiled.wgsl
var attentionTiledWGSL string

var (
	attentionKernel      = kernel{name: "attention", src: commonWGSL + unrollAttention(attentionWGSL, "v[vo + min(%du, dn - 1u)]"), nOut: 1, nIn: 3}
	attentionTiledKernel = kernel{name: "attention-tiled", src: commonWGSL + unrollAttention(attentionTiledWGSL, "vsh[vo + min(%du, dn - 1u)]"), nOut: 1, nIn: 3}
)

// tiledMaxHeadDim is the largest head dim of the tiled kernel (its workgroup memory holds
// 64·32 query values); larger ones (the VAE's 512) run the untiled kernel.
const tiledMaxHeadDim = 128

// unrollAttention writes out the per-lane loops of attention.wgsl (see there why): lanes
// beyond the slice's dn dims read a clamped (valid) value and are never stored.
func unrollAttention(src, vload string) string {
	var rescale, accum strings.Builder
	for e := range 32 {
		fmt.Fprintf(&rescale, "\t\t\tacc[%d] = acc[%d] * corr;\n", e, e)
		fmt.Fprintf(&accum, "\t\tacc[%d] += pe * "+vload+";\n", e, e)
	}
	return strings.NewReplacer("//RESCALE//", rescale.String(), "//ACCUM//", accum.String()).Replace(src)
}

// Attention computes out = softmax(q·kᵀ·scale + mask)·v per head without a score matrix.
func (b *Backend) Attention(out, q, k, v gpu.Tensor, p gpu.AttnParams) {
	if !b.begin() {
		return
	}
	defer b.mu.Unlock()
	p = p.WithDefaults()
	if err := gpu.CheckAttention(out, q, k, v, p); err != nil {
		b.fail(err)
		return
	}
	if p.SeqQ == 0 {
		return
	}
	span := func(seq, stride, width int) int { return (seq-1)*stride + width }
	nk := p.VisibleKeys()
	slices := (p.HeadDim + 31) / 32
	c := b.newCall("Attention")
	ob := c.out(out, 0, span(p.SeqQ, p.OutStride, p.Heads*p.HeadDim))
	qb := c.in(q, 0, span(p.SeqQ, p.QStride, p.Heads*p.HeadDim))
	var kb, vb uint32
	if p.SeqK > 0 {
		kb = c.in(k, 0, span(p.SeqK, p.KStride, p.KVHeads*p.HeadDim))
		vb = c.in(v, 0, span(p.SeqK, p.VStride, p.KVHeads*p.HeadDim))
	} else {
		kb = c.in(gpu.Tensor{}, 0, 0)
		vb = c.in(gpu.Tensor{}, 0, 0)
	}
	if p.HeadDim <= tiledMaxHeadDim && b.lim.MaxComputeWorkgroupStorageSize >= 16384 {
		qblocks := (p.SeqQ + 64/slices - 1) / (64 / slices)
		gx, gy := b.grid(qblocks * p.Heads)
		c.run(&attentionTiledKernel, "", []uint32{uint32(p.SeqQ), uint32(nk), uint32(p.Heads), uint32(p.Heads / p.KVHeads), uint32(p.HeadDim),
			uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride), qb, kb, vb, ob, bool32(p.Causal), uint32(slices), f32u(p.Scale), uint32(qblocks)},
			gx, gy, 1)
		return
	}
	gx, gy := b.grid((p.SeqQ*p.Heads*slices + 63) / 64)
	c.run(&attentionKernel, "", []uint32{uint32(p.SeqQ), uint32(nk), uint32(p.Heads), uint32(p.Heads / p.KVHeads), uint32(p.HeadDim),
		uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride), qb, kb, vb, ob, bool32(p.Causal), uint32(slices), f32u(p.Scale)},
		gx, gy, 1)
}

// attentionVariants lists the variants of attention for head dims up to 128, reference first.
func attentionVariants() []variantSpec { return []variantSpec{{name: "tiled-slices"}} }

// attention512Variants lists the variants of the VAE's head-dim-512 attention, reference first.
func attention512Variants() []variantSpec { return []variantSpec{{name: "untiled-slices"}} }
