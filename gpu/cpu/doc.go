// Package cpu is the CPU implementation of gpu.Backend: tensors are host memory, weights are
// zero-copy views of the caller's slices (the memory-mapped checkpoint), and every operation
// runs synchronously as a Go kernel over a GEMM provider (BLAS): OpenBLAS via cgo, Accelerate
// on macOS, gonum in pure Go (package purego), or oneDNN for bf16 products. Package
// gpu/backends chooses and opens them by name.
//
// # Providers
//
// Which providers a binary holds is fixed at build time (see package backends):
//   - openblas: cgo and not -tags noblas, except on macOS and Windows (Debian: libopenblas-dev);
//   - accelerate: macOS with cgo and not -tags noblas;
//   - purego: always (gonum's Sgemm), the only one with CGO_ENABLED=0 or -tags noblas;
//   - onednn: with openblas, where Intel's oneDNN (libdnnl.so.2, Debian libdnnl2) loads at run
//     time and the CPU multiplies bf16 natively (AVX512-BF16 or AMX). Products by bf16 weights
//     run on oneDNN with the activations rounded to bf16 (results about 1e-3 relative off the
//     f32 path; 3–5× faster), all else on OpenBLAS. Never the default: opt in by name.
//
// The provider sub-packages do not import this package: they satisfy BLAS (and oneDNN
// BF16MatMuler) structurally. Every provider passes the same conformance suite (gpu/gputest).
//
// # Errors and memory
//
// Ops validate their arguments with the gpu.Check* functions and then resolve their tensors:
// a tensor of another backend, a freed one, or a weight given as an output is an error. The
// first error is kept and returned (and cleared) by the next Read, Flush or Sync; ops never
// panic on bad arguments. Alloc is counted in Memory's Resident and Peak, weights in Viewed;
// the kernels' pooled scratch (see LinearScratchFloats, AttentionScratchFloats,
// ConvScratchFloats, ConvKernelScratchFloats) is not counted.
//
// Quantized weights (WeightQuant: ggml's Q4_0 ... Q6_K blocks) are views too. Linear
// dequantizes them with package gpu/quant a tile of rows at a time, in parallel, into the same
// pooled tile as bf16 weights (LinearScratchFloats), one Sgemm per tile: exact dequantized
// values, float32 accumulation, no full-size float32 copy.
//
// # Mapped weights
//
// Weights usually view a memory-mapped checkpoint. When the file shrinks under the mapping
// (replaced or truncated on disk), reading the lost pages raises SIGBUS. In Go code,
// debug.SetPanicOnFault (set by the engine around each run) turns that into a panic the engine
// recovers as an error naming the file; in C code (OpenBLAS's or oneDNN's threads) it kills the
// process. So weights reach the provider only through Go: f32 weights are copied a tile at a
// time (Linear, LinearScratchFloats) or whole (Conv2D kernels, ConvKernelScratchFloats), bf16
// ones widened (or, for oneDNN's native bf16 product, copied as bf16 a tile at a time),
// quantized ones decoded, and the provider multiplies the copies; activations are never
// mapped. TestMappedWeightFaultNative pins this per provider. The copy is one pass over the
// weight per product. BenchmarkLinearCopy sets it beside the single product on the weight as
// it is; on a 2-core AMD EPYC (Turin) shared with other jobs (load average 14–22), best of 3
// runs of 3, GFLOP/s copied vs direct (one case's runs spread by up to 50%):
//
//	shape (rows × in → out)   OpenBLAS f32     oneDNN bf16
//	64 × 3072 → 9216          30.8 vs 33.6     135 vs 210
//	768 × 3072 → 9216         31.7 vs 23.8     111 vs 141
//	512 × 2560 → 9728         24.2 vs 27.2     71.6 vs 102
//
// so f32 weights cost little (the copy is small beside the product), while oneDNN's faster
// bf16 product loses a quarter to a third: its tiles are smaller products, x is rounded to bf16
// once per tile, and the copy is a larger share of a faster product.
//
// # Threading
//
// Go kernels (norms, activations, softmax, im2col, bf16 widening, layouts) split rows or
// elements over the Backend's workers (GOMAXPROCS). Products are single Sgemm calls that the
// provider runs on all cores by itself (OpenBLAS sizes its pool to the core count). No kernel
// calls the provider from several goroutines at once: OpenBLAS serialises concurrent
// multi-threaded calls on a lock while its idle threads spin, so running attention's (head,
// query tile) items on concurrent goroutines was 2.3× slower than running them one by one
// with the Go work parallel in between (see attention.go). A Backend may still be shared by
// goroutines: its scratch buffers come from pools, the error and the accounting sit behind a
// mutex, and concurrent provider calls are safe, only not faster.
//
// # Speed notes
//
// Measured with bench_test.go and a plain-C cblas_sgemm program on the same shapes, on a
// 2-core AVX-512 machine shared with other jobs (load 1–2); GFLOP/s, best (median) of 3 runs,
// interleaved. "auto" is OpenBLAS's own kernel pick (Cooperlake); the environment variable
// OPENBLAS_CORETYPE=Haswell, set on some machines, forces AVX2 kernels that are 1.6× slower
// per core.
//
//	shape (rows × in → out)  kernels  C sgemm NT   Linear f32   Linear bf16
//	768 × 3072 → 9216        auto     162 (94)     179 (145)    160 (126)
//	512 × 2560 → 9728        auto     189 (142)    166 (164)    139 (137)
//	2048 × 2048 → 2048       auto     236 (142)    150 (143)    148 (101)
//	768 × 3072 → 9216        Haswell  115 (101)    106 (100)    109 (95)
//	512 × 2560 → 9728        Haswell  105 (100)    122 (95)      97 (89)
//	2048 × 2048 → 2048       Haswell  105 (101)    124 (101)    121 (95)
//	purego (gonum), the three shapes: f32 11–13, bf16 11–14
//	attention 768 tokens × 24 heads × 128 (nominal 4·L²·H·D flops): auto 73 (54),
//	causal 127 (83); Haswell 57 (56), causal 88 (85); purego 8, causal 17
//
// onednn (oneDNN 2.6.3, AMX, 2 OpenMP threads; Linear with bf16 weights, 3 runs each, same
// machine, later session; its f32 products are OpenBLAS's):
//
//	shape (rows × in → out)  kernels  openblas f32  openblas bf16  onednn bf16
//	768 × 3072 → 9216        auto     173–179       170–203        540–889
//	512 × 2560 → 9728        auto     166–180       174–181        375–748
//	768 × 3072 → 9216        Haswell  139–144       120–136        443–461
//	512 × 2560 → 9728        Haswell   97–104       118–128        397–513
//	(oneDNN does not read OPENBLAS_CORETYPE: its lower Haswell-session rows reflect machine load.)
//	klein-4B at 256², 4 steps (kleinbild bench): default 44–55 s per step (about 100 GFLOP/s),
//	onednn 17–20 s per step (250–290 GFLOP/s), the bf16 products no longer dominating.
//
// What the measurements showed:
//   - f32 weights through cgo run at the rate of OpenBLAS called from C.
//   - bf16 weights are widened (AVX2, about 12 GB/s) in tiles of up to 32 MiB into pooled
//     buffers: 0–15% below f32 weights (the widening pass is memory-bound and costs more,
//     relatively, the faster the kernels). 256-row tiles were about 20% slower than f32,
//     because every tile's Sgemm re-packs all of x.
//   - Attention: exp(scores) went from math.Exp (about 9 ns per score per core) to an AVX2
//     polynomial (0.7 ns per score on 2 cores); the kernel now runs at about 90% of its
//     products alone. Concurrent (head, tile) items were 2.3–4× slower (see Threading); query
//     tiles of 256 or 768 rows instead of 128 gained under 10% in the products.
//   - Conv2D: im2col costs 5–8% of the product for 3×3 VAE layers.
//   - Tried and dropped: widening the next bf16 tile on a goroutine while the current tile's
//     product runs (no gain within noise: widening is a few percent of the time and competes
//     with OpenBLAS for the same two cores).
package cpu
