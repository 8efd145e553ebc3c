// Package webgpu is a gpu.Backend on WebGPU (wgpu-native through
// github.com/cogentcore/webgpu): Vulkan on Linux, Metal on macOS, Direct3D 12 on Windows.
//
// Every op is a WGSL compute kernel: the package's *.wgsl files (attention*.wgsl, norm.wgsl,
// elementwise.wgsl with RoPE, layout.wgsl, ...) and the matrix-product and flash-attention
// kernels generated per variant in Go (gemm_wgsl.go, attention_flash.go), composed with the
// shared code of common.wgsl. Numerics are exact in the
// sense of the CPU backend: activations and all arithmetic are float32, accumulation is
// float32, and bf16 weights stay bf16 in device memory (two per 32-bit word, widened in the
// shader by a shift).
//
// # Queueing
//
// Ops validate their arguments on the host (gpu.Check*) and append a dispatch to a pending
// list; Flush encodes the list into one command buffer (one compute pass, split only around
// buffer-to-buffer copies), writes every dispatch's parameters into distinct 256-byte slots of
// one uniform buffer, submits, and then waits for the previous submission, so the host stays
// at most one Flush ahead. Upload flushes first (queue writes are ordered before the next
// submission), Read flushes, copies into a mappable staging buffer and waits.
//
// # Large tensors
//
// A kernel argument may span at most the adapter's maxStorageBufferBindingSize. Tensors in
// bigger buffers are bound through windows (offset ranges aligned to
// minStorageBufferOffsetAlignment) around the elements an op touches. Weights larger than one
// binding are stored as several buffers of whole rows, and Linear runs one product per
// chunk. Element-wise ops on activations larger than one binding run in several dispatches
// over windows. Other ops whose operands span more than one binding fail with an error naming
// the size and the limit.
//
// # Quantized weights
//
// WeightQuant keeps ggml's blocks (Q4_0 ... Q6_K) packed in one buffer (at most one binding;
// larger weights are an error). Linear by such a weight runs the Linear variant chosen for
// the rows (tuned on bf16 weights) on the generated tiles, the weight dequantized as each tile
// is fetched, before its store into workgroup memory (gemm_quant_wgsl.go): a loader per type
// (quant.go, wload) decodes an element from its block in float32 as ggml's dequantize_row_*
// does, and a vec4 loader (wload4) decodes four neighbours with one read of their block's
// scales. The conformance suite finds the decoded values bit-identical to package gpu/quant's
// on lavapipe. Only the legacy variant (t64x64-r4x4, when forced or tuned) still runs the
// first kernel (linear.wgsl) with the scalar loader. On lavapipe (2 heavily shared cores)
// 256×2048→2048 ran at 0.8–6.3 GFLOP/s on the tiles against 0.4–1.9 on the first kernel,
// faster for every type in each of two runs (BenchmarkGemmLinearQuant).
//
// # Attention
//
// Attention runs the variant of FamilyAttention (head dims up to 128) or FamilyAttention512
// (larger: the VAE's 512) chosen by SetVariant or tuning, else the first that fits the
// adapter's limits. The flash variants (attention_flash.wgsl, written per variant, head dim
// and load width by attention_flash.go) are FlashAttention-2 in plain WGSL: a workgroup owns
// 16–64 queries of one head; per tile of 16–32 keys it computes each score once, register-
// blocked (4×4 or 4×2 per thread) from Q and K in workgroup memory padded against bank
// conflicts, updates the softmax online once per tile in base 2 (log2 e folded into the
// scale), and accumulates P·V register-blocked; causal blocks skip the tiles above the
// diagonal (leaving out, on tiles across it, the values of keys after a query, so that a NaN
// there cannot enter as 0·NaN); a call without causal mask whose visible keys fill whole
// tiles compiles without the score mask; loads are vec4 when every offset and stride is a
// multiple of 4. Variants differ in block shape (up to 256 threads and 64 queries per
// workgroup), in the softmax's powers of two (the polynomial exp2f, or the built-in exp2:
// "-x2"), and in where the tiles' global loads are issued ("-pf": each K, Q or V tile is
// fetched into registers while the one before it is computed, attention_prefetch.go; on
// lavapipe as fast as without, within its noise). Each family keeps a variant within WebGPU's default limits. Calls are split over query ranges of at most
// MaxDispatchFLOPs. The earlier kernel (attention.wgsl) remains as the variant "legacy", and
// runs head dims that are no multiple of 4 (the tiled one was retired: 10–25× slower). None
// holds a score matrix.
//
// # Matrix products
//
// Linear and Conv2D share one tiled matrix product generated per variant (gemm_wgsl.go): tm×tn
// outputs per workgroup, rm×rn per thread, K in steps of kt through transposed, bank-padded
// workgroup tiles, with the next tile prefetched into registers. Operands whose rows run along
// K are read as vec4 (f32) or vec4<u32> (8 bf16 values, widened with a shift and a mask), with
// a scalar fallback where K or an offset forbids it. Conv2D gathers its image as im2col by
// walking (channel, ky, kx) with carries, so it divides nothing per element. Each product is
// dispatched as an interior part without bounds checks plus its edges, in dispatches of at
// most MaxDispatchFLOPs. Products of at most 8 rows use an 8×256 tile. The first 64×64 kernels
// stay as the variant t64x64-r4x4. Linear also has variants with options (gemm_variants.go):
// vec4 output stores, 32-thread warp tiles, double-buffered workgroup memory, and split K
// (gemm_splitk.go: K slices in workgroup z write partial sums to a buffer of their own, a
// second pass adds them in order and the bias), for products of few row tiles and deep K.
// Tuning times Linear in three classes: FamilyLinear's workload, the large class (3072 rows or
// more) and the deep class (fewer rows, K ≥ 6144), the only one whose candidates include
// split K (tune_class.go), then per shape: each of the model's Linear shapes (ModelDims.Shapes:
// klein-4B at the sizes asked, 256², 1024² and 1792² by default, and its Qwen3-4B encoder)
// within its share of the budget, the winner recorded by the rows' power-of-two bucket, N and
// K; a shape's record wins over the classes (tune_shape.go). Split products reuse one
// partial-sum buffer per backend, grown as needed and released on Close. Inputs are bound read-only unless they share a buffer with the
// output: weights always; an activation only where the engine keeps it apart from the
// output (the split-K partial products bind x read-only, their output being their own
// buffer). Op codes that shaders switch on are Go constants emitted as
// a WGSL const prelude (opcodes.go).
//
// # Variants and tuning
//
// The tunable kernel families (Families) each come in a few variants (variant.go). A backend
// runs each family's reference variant unless a variant is forced (Options.Variants,
// $KLEINBILD_WEBGPU_VARIANTS) or tuned: Tune (tune.go) times every variant on the model's
// shapes, checks the fastest against the reference on random data and caches the choice per
// adapter, driver and SourceHash; Options.Tuned applies a cached choice when the device
// opens. Timing is wall time around Sync (cogentcore/webgpu v0.23 wraps neither compute-pass
// timestamp writes nor the native in-encoder timestamps). Tune also measures the device's
// FMA peak and the families' rates, which size dispatches (see Dispatch length).
//
// # Profiling
//
// StartProfile (profile.go) times every dispatch between two CommandEncoder timestamps (the
// timestamp-query feature, requested when the adapter has it) and TakeProfile sums them per
// op: `kleinbild bench --profile`. Verified on lavapipe.
//
// # Limits and device memory
//
// New asks for the adapter's largest limits; Options.DefaultLimits asks for WebGPU's default
// limits instead (16 KiB of workgroup memory, 128 MiB bindings, 256 MiB buffers, 256
// invocations per workgroup), as a portable device would give, so that tests exercise the
// fallback paths. WebGPU does not report device memory; deviceMemory (limits_mem.go) fills
// gpu.DeviceInfo.MemoryBytes where the platform says it, and MemorySource says from where.
//
// # Dispatch length
//
// Kernels that can split their work (attention over query ranges, the matrix products over
// rows or pixels) size each dispatch to run about DispatchSeconds (0.1 s) on this device, so
// that none trips the Windows (2 s) or macOS watchdog, and to hold at least a floor of
// workgroups, so that a split never starves a fast GPU (dispatch.go). The rate is the one
// tuning measured per family (Linear's for the products, attention's own for attention), set
// as each family is timed; before tuning, the FMA probe's share (a real GPU probes when it
// opens untuned), else a default by device kind (5 TFLOP/s discrete, 100 GFLOP/s software).
// Verified on lavapipe only (no watchdog there); the dispatch counts at the model's shapes
// are unit-tested.
//
// # Measured (llvmpipe, LLVM 15, 2 cores: correctness only)
//
// Full conformance suite at TolScale 1: passes in about 35–60 s. New against old kernels, side
// by side on lavapipe (AMD EPYC, 2 cores shared with other work, ±50 %): klein attention d=128
// at 768 tokens 1.7–2.1 GFLOP/s against 0.07–0.25, Qwen3 causal 512 tokens 1.4–2.1 against
// 0.07–0.17, VAE d=512 at 1024 tokens 0.6–1.6 against 0.05–0.07; Linear bf16 768×3072→9216
// 3.65 against 1.49, Qwen3 512×2560→9728 3.01 against 1.57; VAE 3×3 convs at reduced sizes
// 1.9–5.1 against 0.9–1.7. Per useful FLOP the flash kernels spend 1.02–1.18 FLOPs (the old
// ones 2.5, and 8.5 at d=512); per 1024 multiply-adds the tile kernel issues 3 global loads
// instead of 32 and 64 vec4 shared reads instead of 512 scalar ones. `kleinbild bench
// --kernels --quick`: f32 FMA rate 32–38 GFLOP/s, copy bandwidth 13.5–27.5 GB/s. No GPU was
// available to measure real rates.
//
// llvmpipe quirks handled here: it ends any loop after 65535 iterations in total per
// invocation (attention unrolls its inner loops; see attention_flash.go), and wgpu's blocking
// device poll returns after 5 s whether or not the work is done (waits poll without
// blocking until a completion callback fires).
//
// # Errors
//
// Validation errors of the device calls, out-of-memory on buffer creation (caught through an
// error scope) and a lost device become the sticky error returned by the next Read, Flush or
// Sync; a lost device keeps returning it. Buffers are checked against the adapter's limits
// before they are created. Error scopes are open around all work on every platform,
// Windows included (scope.go), so an out-of-memory error ends as an error naming the
// allocation, never as an abort of the process.
package webgpu

import "kleinbild/gpu"

// Options selects the adapter a Backend runs on and how the device is set up.
type Options struct {
	// Adapter is an index into Adapters(); -1 picks the best: discrete, then integrated,
	// then other; a software adapter only when it is the only one.
	Adapter int
	// DefaultLimits opens the device with WebGPU's default limits (see above) instead of
	// the adapter's largest.
	DefaultLimits bool
	// Variants forces kernel variants, family to variant name (see Families, Variants);
	// $KLEINBILD_WEBGPU_VARIANTS overrides it per family. Tuning leaves forced families alone.
	Variants map[string]string
	// Tuned applies the variants of the tuning cache (see Tune) for this adapter when their
	// SourceHash still matches; families without a valid entry run their reference variant.
	Tuned bool
	// CacheDir is the tuning cache folder ("": <user cache dir>/kleinbild/tune).
	CacheDir string
}

// Adapter is one WebGPU adapter as AdapterDetails lists it.
type Adapter struct {
	Info gpu.DeviceInfo
	// MemorySource says where Info.MemoryBytes comes from ("unknown" when 0).
	MemorySource string
	// Driver is the driver's description (the tuning cache is per adapter and driver).
	Driver string
	// VendorID and DeviceID are the PCI identifiers the driver reports (a software
	// adapter's are the driver's own): they pair the adapter with the same card's device
	// of another API (gpu/backends pairs it with a Vulkan device).
	VendorID, DeviceID uint32
	key                string // adapter and driver identity (tuning cache)
	index              int    // position in AdapterDetails' list
}

// Index is the adapter's position in AdapterDetails' list, as Options.Adapter takes it.
func (a Adapter) Index() int { return a.index }

// Key is the adapter's identity in the tuning cache: its PCI identifiers, API, name, driver
// and architecture ("" for an adapter not listed by AdapterDetails). Other caches of
// measurements on this adapter key on it.
func (a Adapter) Key() string { return a.key }
