//go:build cgo

package webgpu

import (
	_ "embed"
	"fmt"
	"math"
	"strings"

	"kleinbild/gpu"
)

//go:embed attention.wgsl
var attentionWGSL string

var attentionKernel = kernel{name: "attention", src: commonWGSL + unrollAttention(attentionWGSL, "v[vo + min(%du, dn - 1u)]"), nOut: 1, nIn: 3}

// tiledMaxHeadDim is the largest head dim of FamilyAttention; larger ones (the VAE's 512) run
// FamilyAttention512.
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

// Attention kernels. The flash kernel (attention_flash.wgsl, generated per variant, head dim
// and load width by attention_flash.go) is FlashAttention-2 on plain WGSL: a workgroup owns a
// block of queries, computes each score of a key tile once (register-blocked, 4×4 or 4×2 per
// thread), updates the softmax online once per tile in base 2 (log2 e folded into the scale),
// and adds P·V register-blocked (4 rows × 16 dims per thread at head dim 128); causal blocks
// skip the tiles above the diagonal, and long calls are split over query ranges
// (dispatch.go). The legacy kernel stays as a variant for comparison and for head dims that
// are no multiple of 4: it computes every score 16 times at the VAE's head dim 512 (8.5 FLOPs
// per useful FLOP); the flash kernels spend 1.01–1.04 (padding of the last tiles), 1.12–1.18
// for Qwen3's causal 512 tokens (the masked halves of the diagonal tiles). The tiled legacy
// kernel (4 threads per query, 2.5 FLOPs per useful FLOP) was retired: it was 10–25× slower
// than flash wherever it was measured, and never the fastest.
//
// Measured on lavapipe (llvmpipe, LLVM 15, 256-bit; 2 cores of an AMD EPYC shared with other
// jobs, so ±50 %), useful GFLOP/s, new reference variant vs legacy-tiled / legacy, at the
// models' shapes with fewer heads: klein-4B joint attention, head dim 128, 768 tokens:
// 1.7–2.1 vs 0.07–0.16 / 0.15–0.25; 1536 tokens: 1.4 vs 0.12 / 0.17; 4608 tokens: 1.1 vs – /
// 0.18; Qwen3 causal 512 tokens, 4:1 grouped heads: 1.4–2.1 vs 0.07–0.17 / 0.10–0.12; VAE head
// dim 512, 1024 tokens: 0.6–1.6 vs – / 0.05–0.07. No GPU was available to measure real rates.

// flashVariants lists the flash kernels (attention_flash.wgsl) of FamilyAttention (head dims up
// to 128) or FamilyAttention512, in the order the family lists them; names encode the
// parameters (flashConfig.name). The comments give the workgroup memory at head dim 128 or 512.
func flashVariants(family string) []flashConfig {
	if family == FamilyAttention512 {
		return []flashConfig{
			{bq: 32, bk: 32, rq: 2, rk: 2, or: 4, dc: 64},           // 26 KB (any head dim), 256 threads
			{bq: 16, bk: 32, rq: 2, rk: 2, or: 2, dc: 32},           // 11 KB: fits WebGPU's default limits
			{bq: 32, bk: 32, rq: 2, rk: 2, or: 4, dc: 64, x2: true}, // the first, with the built-in exp2
			{bq: 32, bk: 32, rq: 2, rk: 2, or: 4, dc: 64, pf: true}, // the first, tiles prefetched
		}
	}
	return []flashConfig{
		{bq: 32, bk: 32, rq: 4, rk: 4, or: 4, dc: 64, stageV: true},           // 31 KB: the reference; fits Apple GPUs and lavapipe
		{bq: 32, bk: 32, rq: 4, rk: 4, or: 4, stageV: true},                   // 39 KB: Q loaded once
		{bq: 64, bk: 32, rq: 4, rk: 4, or: 4, dc: 64, stageV: true},           // 45 KB, 128 threads
		{bq: 32, bk: 16, rq: 4, rk: 2, or: 4, stageV: true},                   // 29 KB: Q loaded once
		{bq: 32, bk: 16, rq: 4, rk: 2, or: 4, dc: 32},                         // 11 KB: fits WebGPU's default limits
		{bq: 64, bk: 32, rq: 2, rk: 4, or: 4, dc: 32},                         // 26 KB: 256 threads, 64 queries
		{bq: 32, bk: 32, rq: 4, rk: 4, or: 4, dc: 64, stageV: true, x2: true}, // the reference with the built-in exp2
		{bq: 32, bk: 32, rq: 4, rk: 4, or: 4, dc: 64, stageV: true, pf: true}, // the reference, tiles prefetched
	}
}

// legacy names the kernel kept from before the flash kernels (attention.wgsl: one thread per
// query and 32 dims, K and V from the buffers), to measure old against new.
const legacy = "legacy"

// attentionVariants lists the variants of attention for head dims up to 128, reference first.
// Every list ends with the legacy kernel, which fits any adapter.
func attentionVariants() []variantSpec {
	var vs []variantSpec
	for _, f := range flashVariants(FamilyAttention) {
		vs = append(vs, variantSpec{name: f.name("fa"), fits: f.fits(tiledMaxHeadDim), flash: &f})
	}
	return append(vs, variantSpec{name: legacy})
}

// attention512Variants lists the variants of the VAE's head-dim-512 attention (any head dim
// above 128), reference first.
func attention512Variants() []variantSpec {
	var vs []variantSpec
	for _, f := range flashVariants(FamilyAttention512) {
		vs = append(vs, variantSpec{name: f.name("fa"), fits: f.fits(512), flash: &f})
	}
	return append(vs, variantSpec{name: legacy})
}

// flashVariant returns the flash kernel named name, if it is one.
func flashVariant(name string) (flashConfig, bool) {
	for _, f := range append(flashVariants(FamilyAttention), flashVariants(FamilyAttention512)...) {
		if f.name("fa") == name {
			return f, true
		}
	}
	return flashConfig{}, false
}

// queriesPerDispatch is how many queries one dispatch may serve under bound d (4 FLOPs per
// query, key, head dim and head): a multiple of the kernel's query block bq, at least one
// block; each block is one workgroup per head.
func queriesPerDispatch(p gpu.AttnParams, nk, bq int, d dispatchBound) int {
	perQuery := 4 * float64(max(nk, 1)) * float64(p.HeadDim) * float64(p.Heads)
	return d.units(perQuery, bq, p.Heads)
}

// Attention computes out = softmax(q·kᵀ·scale + mask)·v per head without a score matrix, with
// the variant of FamilyAttention (head dims up to 128) or FamilyAttention512 (larger) this
// backend runs. Head dims that are no multiple of 4 run the legacy kernels.
func (b *Backend) Attention(out, q, k, v gpu.Tensor, p gpu.AttnParams) {
	b.attention(out, q, k, v, p, 0)
}

// attention is Attention with the flash kernels' dispatches bounded to budget FLOPs (0: the
// device's bound for the family, dispatch.go: attention's own rate once tuning measured it).
func (b *Backend) attention(out, q, k, v gpu.Tensor, p gpu.AttnParams, budget float64) {
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
	family := FamilyAttention
	if p.HeadDim > tiledMaxHeadDim {
		family = FamilyAttention512
	}
	if f := specOf(family, b.Variant(family)).flash; f != nil && p.HeadDim%4 == 0 {
		d := dispatchBound{flops: budget}
		if budget == 0 {
			d = b.rates.bound(b.info.Kind, family)
		}
		b.flashAttention(c, *f, p, [4]uint32{qb, kb, vb, ob}, d)
		return
	}
	b.legacyAttention(c, p, [4]uint32{qb, kb, vb, ob})
}

// flashAttention queues the flash kernel f over query ranges within bound d each; offs are
// the element offsets of q, k, v and out in their bindings.
func (b *Backend) flashAttention(c *call, f flashConfig, p gpu.AttnParams, offs [4]uint32, d dispatchBound) {
	vec4 := p.HeadDim%4 == 0 && p.QStride%4 == 0 && p.KStride%4 == 0 && p.VStride%4 == 0 && p.OutStride%4 == 0
	for _, o := range offs {
		vec4 = vec4 && o%4 == 0
	}
	nk := p.VisibleKeys()
	noMask := !p.Causal && nk%f.bk == 0 // every score of every key tile visible
	name := fmt.Sprintf("attention/%s/d%d", f.name("fa"), p.HeadDim)
	if vec4 {
		name += "/v4"
	}
	if noMask {
		name += "/nomask"
	}
	// Write the source only when the pipeline run will use is not compiled yet (its key as
	// Backend.pipeline forms it; a key that does not match only costs the writing).
	k := &kernel{name: name, nOut: 1, nIn: 3}
	key := c.pipelineKey(name, "")
	if b.pipes[key] == nil {
		k.src = f.flashSource(p.HeadDim, vec4, noMask)
	}
	step := queriesPerDispatch(p, nk, f.bq, d)
	scale2 := float32(float64(p.Scale) * math.Log2E)
	for q0 := 0; q0 < p.SeqQ; q0 += step {
		qblocks := (min(step, p.SeqQ-q0) + f.bq - 1) / f.bq
		gx, gy := b.grid(qblocks * p.Heads)
		c.run(k, "", []uint32{uint32(p.SeqQ), uint32(nk), uint32(p.Heads), uint32(p.Heads / p.KVHeads),
			uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride), offs[0], offs[1], offs[2], offs[3],
			bool32(p.Causal), f32u(scale2), uint32(qblocks), uint32(q0)}, gx, gy, 1)
	}
}

// legacyAttention queues the kernel from before the flash kernels (attention.wgsl).
func (b *Backend) legacyAttention(c *call, p gpu.AttnParams, offs [4]uint32) {
	nk := p.VisibleKeys()
	slices := (p.HeadDim + 31) / 32
	qb, kb, vb, ob := offs[0], offs[1], offs[2], offs[3]
	gx, gy := b.grid((p.SeqQ*p.Heads*slices + 63) / 64)
	c.run(&attentionKernel, "", []uint32{uint32(p.SeqQ), uint32(nk), uint32(p.Heads), uint32(p.Heads / p.KVHeads), uint32(p.HeadDim),
		uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride), qb, kb, vb, ob, bool32(p.Causal), uint32(slices), f32u(p.Scale)},
		gx, gy, 1)
}
