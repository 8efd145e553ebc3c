//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math"
	"strings"

	"kleinbild/gpu"
)

// fastAttnMaxDim is the largest head dim of the fast attention (attnf16.glsl's DM); larger
// heads (the VAE's 512) run the exact flash kernel in the fast precision too.
const fastAttnMaxDim = 128

// fastAttnKernel is the fast attention's kernel on this device: attncm on matrix units whose
// shape fits its 16-query tiles (LM dividing 16) with subgroups of at least 8 (its tile
// loops step by a 32nd of the workgroup), else its twin attnf16 (Backend.fastForce, when it
// names an attention kernel, forces one).
func (b *Backend) fastAttnKernel() string {
	if strings.HasPrefix(b.fastForce, "attn") {
		return b.fastForce
	}
	if b.units != nil && 16%b.units.m == 0 && b.units.subgroup >= 8 {
		return "attncm"
	}
	return "attnf16"
}

// fastAttention queues the fast attention (attnf16.glsl: 16 queries of a head per
// workgroup); offs are the element offsets of q, k, v and out in their bindings.
func (b *Backend) fastAttention(c *call, p gpu.AttnParams, offs [4]uint32) {
	const bq = 16
	qblocks := (p.SeqQ + bq - 1) / bq
	gx, gy := b.grid(qblocks * p.Heads)
	scale2 := float32(float64(p.Scale) * math.Log2E)
	c.run(b.fastAttnKernel(), []uint32{uint32(p.SeqQ), uint32(p.VisibleKeys()), uint32(p.Heads), uint32(p.Heads / p.KVHeads),
		uint32(p.HeadDim), uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride),
		offs[0], offs[1], offs[2], offs[3], bool32(p.Causal), uint32(qblocks), f32u(scale2)}, gx, gy, 1)
}
