// Package vulkan is a gpu.Backend on a Vulkan compute device, with GLSL compute shaders
// compiled to SPIR-V (make shaders: glslc) and embedded, so go build needs no shader compiler.
//
// The Vulkan loader (libvulkan.so.1, Windows vulkan-1.dll) is opened at run time through
// purego, so a binary runs on machines without Vulkan: New then fails with a message saying
// so and every other backend keeps working. The backend is built on Linux and Windows (64-bit)
// with cgo; elsewhere New always fails (stub.go).
//
// # Runtime
//
// One compute queue of the chosen physical device (discrete first, then integrated, then
// software such as Mesa's lavapipe). Every tensor is one device-local storage buffer; uploads
// and reads go through host-visible staging buffers, kept per submission and reused once its
// fence has signalled. Ops record into a command buffer: bind a pipeline, a descriptor set of
// storage buffers from the submission's descriptor pool, push constants with the element
// offsets and dimensions, dispatch, and a global memory barrier so that the next op sees the
// writes. Flush submits with a fence and waits for the previous submission's fence (the host
// stays at most one Flush ahead); Read and Sync wait for everything.
//
// Kernels (shaders/*.comp, most of them ports of the WGSL ones of gpu/webgpu): element-wise
// and layout ops, row norms reduced within subgroups (shared-memory trees on devices without
// subgroup arithmetic), Linear as a tiled f32 GEMM on f32, bf16 or quantized weights (ggml's
// blocks decoded in the kernel), Conv2D as an implicit GEMM, and flash attention (query and
// key tiles in shared memory, an online softmax, no score matrix; causal, KeyValid,
// grouped-query heads, strides). Operands larger than the device's largest storage binding are
// bound in windows by Linear and the element-wise ops; the other ops fail with an error on them.
//
// # Precision
//
// SetPrecision (gpu.Precisioner) selects exact, the default (every product in float32), or
// fast: Linear on bf16 weights multiplies float16 operands with float32 sums, the activations
// scaled per row by a power of two first (rowscale.comp; FLUX's activations overflow float16)
// and the residual stream, norms and every other op left in float32 (linearf16.glsl). On a
// device with VK_NV_cooperative_matrix (probed in coop.go, enabled at device creation only
// when present) it runs on the matrix units (linearcm.comp, the shape chosen from the
// device's VkCooperativeMatrixPropertiesNV); elsewhere on the plain twin with the same tiles
// and roundings (linearf16.comp), which is what lavapipe and CI test. Conv2D (convf16.glsl:
// the image scaled by one power of two) and attention up to head dim 128 (attnf16.glsl:
// float16 Q, K, V and P tiles, each scaled by a power of two, float32 softmax and sums) run
// the same way: convcm.comp and attncm.comp on the units, convf16.comp and attnf16.comp as
// twins; the VAE's attention (head dim 512) stays float32. The matrix-unit kernels have not
// run on a card yet. The CLI's default is exact; the app's is fast on a device with matrix
// units, so the first SetPrecision(fast) there compares each unit kernel with its twin
// (verifyUnits) and falls back to the twins if one differs.
//
// Profiling (StartProfile, for kleinbild bench --profile) times every dispatch with timestamp
// queries (profile.go).
//
// A device with VK_KHR_cooperative_matrix and without the NV extension (AMD, Intel) runs the
// same matrix-unit kernels: their NV SPIR-V is rewritten into KHR when the pipeline is built
// (spirvkhr.go: opcodes, each matrix type's Use, layout operands), the shape chosen from
// VkCooperativeMatrixPropertiesKHR (coopkhr.go). On a card with both, Options.CoopKHR or
// KLEINBILD_VULKAN_COOP=khr choose KHR, so devices --selfcheck compares the rewritten kernels
// with their twins. This path has not met a card yet: no AMD, Intel or NVIDIA device.
//
// The default rule (gpu/backends) runs a card on this backend, in exact precision, only where
// kleinbild tune measured it faster than WebGPU on that card; fast is only an explicit choice.
package vulkan
