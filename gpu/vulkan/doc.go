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
// Stage 1 of issue 34: plain f32 kernels on F32 or BF16 weights, no matrix units (cooperative
// matrices), no quantized weights (WeightQuant refuses every type), no timestamp queries.
package vulkan
