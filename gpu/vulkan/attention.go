//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math"

	"kleinbild/gpu"
)

// Attention kernels. The flash kernels (shaders/flash.glsl, compiled for head dims up to 32,
// 128 and 512 as attnflash32/128/512) are FlashAttention-2 on plain GLSL, the design of
// ../webgpu/attention_flash.wgsl: a workgroup owns 32 queries of a head, computes each score
// of a 32-key tile once (register-blocked, 4×4 or 2×2 per invocation) from Q and K chunks in
// shared memory, updates the softmax online once per tile in base 2, and adds P·V
// register-blocked (4 rows × 16 dims per invocation at head dim 128). Head dims above 512 run
// the per-query kernel of stage 1 (attention.comp: one invocation per query and 32 dims, which
// computes every score once per 32-dim slice).
//
// Measured on lavapipe (llvmpipe, LLVM 15, 256-bit; 2 cores of an AMD EPYC under a load of
// 10–20 from other jobs, so ±50 %), useful GFLOP/s (BenchmarkAttention, 4 FLOPs per visible
// pair and head dim), flash against the per-query kernel in one run: klein-4B's joint
// attention at 768 tokens 0.29 vs 0.024, 1536 tokens 0.24 vs 0.041; Qwen3's causal 512 tokens
// (4:1 heads) 0.66 vs 0.047; the VAE's head dim 512 at 1024 tokens 0.31 vs 0.0096 (10–30×).
// WebGPU's flash kernel of the same design (its reference variants) measured 0.4–4.1, 0.9,
// 0.9–1.8 and 0.7–2.6 in runs interleaved with these, 2–4× the Vulkan kernel's 0.4–1.0,
// 0.24, 0.35–0.84 and 0.25–1.4: the gap is not the loads (vec4 loads where aligned), a
// constant head dim, spirv-opt or the unrolling (each tried, none changed it beyond the noise).
// Most of it is not the shader: per CPU second of the process (the side-by-side benchmark,
// -tags sidebyside) this flash kernel ran at 1.7–1.9 useful GFLOP at 1536 tokens against
// WebGPU's 2.4–2.6 (1.4×), while in wall time it used 0.35–0.77 of the 2 cores against
// WebGPU's 0.6–1.4 in the same processes, seconds apart (its lavapipe threads runnable in
// ~95 % of samples, with the same nice and policy; why they get less CPU is not known).
// WebGPU's own GEMM, translated by naga and run through this backend, was as slow in wall
// time as this backend's GEMM.

// flashKernel returns the flash kernel for head dim d and its query block, or "" when d is
// larger than any of them.
func flashKernel(d int) (string, int) {
	switch {
	case d <= 32:
		return "attnflash32", 32
	case d <= 128:
		return "attnflash128", 32
	case d <= 512:
		return "attnflash512", 32
	}
	return "", 0
}

// Attention computes out = softmax(q·kᵀ·scale + mask)·v per head without a score matrix: the
// flash kernel for the head dim, or the per-query kernel above 512 (or when attnPerQuery forces
// it).
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
	if p.SeqQ == 0 || p.Heads == 0 || p.HeadDim == 0 {
		return
	}
	span := func(seq, stride, width int) int { return (seq-1)*stride + width }
	c := b.newCall("Attention")
	ob := c.out(out, span(p.SeqQ, p.OutStride, p.Heads*p.HeadDim))
	qb := c.in(q, span(p.SeqQ, p.QStride, p.Heads*p.HeadDim))
	var kb, vb uint32
	if p.SeqK > 0 {
		kb = c.in(k, span(p.SeqK, p.KStride, p.KVHeads*p.HeadDim))
		vb = c.in(v, span(p.SeqK, p.VStride, p.KVHeads*p.HeadDim))
	} else {
		kb = c.in(gpu.Tensor{}, 0)
		vb = c.in(gpu.Tensor{}, 0)
	}
	offs := [4]uint32{qb, kb, vb, ob}
	if b.fast && p.HeadDim <= fastAttnMaxDim && !b.attnPerQuery { // attentioncm.go
		b.fastAttention(c, p, offs)
		return
	}
	if name, bq := flashKernel(p.HeadDim); name != "" && !b.attnPerQuery {
		b.flashAttention(c, name, bq, p, offs)
		return
	}
	b.legacyAttention(c, p, offs)
}

// flashAttention queues flash kernel name (query block bq); offs are the element offsets of
// q, k, v and out in their bindings.
func (b *Backend) flashAttention(c *call, name string, bq int, p gpu.AttnParams, offs [4]uint32) {
	qblocks := (p.SeqQ + bq - 1) / bq
	gx, gy := b.grid(qblocks * p.Heads)
	scale2 := float32(float64(p.Scale) * math.Log2E)
	c.run(name, []uint32{uint32(p.SeqQ), uint32(p.VisibleKeys()), uint32(p.Heads), uint32(p.Heads / p.KVHeads),
		uint32(p.HeadDim), uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride),
		offs[0], offs[1], offs[2], offs[3], bool32(p.Causal), uint32(qblocks), f32u(scale2)}, gx, gy, 1)
}

// legacyAttention queues the per-query kernel (attention.comp).
func (b *Backend) legacyAttention(c *call, p gpu.AttnParams, offs [4]uint32) {
	slices := (p.HeadDim + 31) / 32
	gx, gy := b.grid((p.SeqQ*p.Heads*slices + 255) / 256)
	c.run("attention", []uint32{uint32(p.SeqQ), uint32(p.VisibleKeys()), uint32(p.Heads), uint32(p.Heads / p.KVHeads),
		uint32(p.HeadDim), uint32(p.QStride), uint32(p.KStride), uint32(p.VStride), uint32(p.OutStride),
		offs[0], offs[1], offs[2], offs[3], bool32(p.Causal), uint32(slices), f32u(p.Scale)}, gx, gy, 1)
}
