// Package gpu is Kleinbild's compute layer: the Tensor type (a view of memory owned by a
// backend) and the Backend interface holding every operation the models run (linear layers
// on f32 or bf16 weights, attention, norms, activations, rotary embeddings, convolutions,
// latent layouts, the Euler update). The engine's models are sequences of Backend calls; the
// host touches data only at upload and read-back.
//
// Implementations live in sub-packages: cpu (OpenBLAS, Accelerate, pure Go or oneDNN GEMM
// under Go kernels; weights stay zero-copy views of the memory-mapped checkpoint) and webgpu
// (WGSL kernels on Metal, Vulkan or Direct3D 12). Package backends lists and opens them by
// name, and gputest is the conformance suite each one runs from its own test.
//
// # Adding a backend
//
// Implement Backend (validate arguments with the Check* functions of this package, keep the
// first error for Read/Flush/Sync), then call gputest.Run from the new package's test and add
// it to package backends.
package gpu
