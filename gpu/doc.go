// Package gpu is Kleinbild's compute layer: a small Backend interface (matrix multiply) that
// each backend implements (OpenBLAS via cgo, Accelerate on macOS, pure Go), and Device, which
// builds every kernel the models need (linear layers on bf16/f32 weights, norms, attention,
// rotary embeddings, convolutions, ...) on top of it, parallel over the machine's cores.
//
// # Backends
//
// Which backends a binary holds is fixed at build time (see Backends, ByName, Default):
//   - openblas: cgo and not -tags noblas, except on macOS and Windows (Debian: libopenblas-dev);
//   - accelerate: macOS with cgo and not -tags noblas;
//   - purego: always (gonum's Sgemm), the only one with CGO_ENABLED=0 or -tags noblas.
//
// The backend sub-packages do not import gpu: they satisfy Backend structurally. Every backend
// passes the same conformance suite (conformance_test.go).
//
// # Threading
//
// Go kernels (norms, activations, softmax, im2col, bf16 widening) split rows or elements over
// the Device's workers (GOMAXPROCS). Products are single Sgemm calls that the backend runs on
// all cores by itself (OpenBLAS sizes its pool to the core count). No kernel calls the backend
// from several goroutines at once: OpenBLAS serialises concurrent multi-threaded calls on a
// lock while its idle threads spin, so running attention's (head, query tile) items on
// concurrent goroutines was 2.3× slower than running them one by one with the Go work
// parallel in between (see Device.Attention). A Device may still be shared by goroutines: its
// scratch buffers come from pools, and concurrent backend calls are safe, only not faster.
//
// # Speed notes (2 cores, shared machine; GFLOP/s, medians)
//
// See bench_test.go for the benchmarks; the table of the last measurement is in the report of
// the change that added it and summarised here:
//   - f32 GEMM through cgo reaches what OpenBLAS reaches from C on the same shapes.
//   - bf16 weights (widened 256 rows at a time into pooled buffers) run within a few percent
//     of f32 weights: widening is one pass over the tile against 2·rows flops per weight.
//   - attention at 768 tokens × 24 heads × 128: the exp pass went from math.Exp (9.5 ns per
//     score per core) to an AVX2 polynomial (0.7 ns per score on 2 cores), leaving the products
//     at about 80% of the time. Running (head, tile) items concurrently was 2.3× slower
//     (OpenBLAS oversubscription), so they run sequentially.
//   - Conv2D: im2col costs 5–8% of the product for 3×3 VAE layers; caching converted bf16
//     kernels would save under 1% (one pass over the kernel per call) and is not done.
//   - Tried and dropped: converting the next bf16 tile on a goroutine while the product of the
//     current one runs (within noise: the conversion is 2–4% of the time and competes with
//     OpenBLAS for the same two cores).
package gpu
