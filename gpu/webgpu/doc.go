// Package webgpu is a gpu.Backend on WebGPU (wgpu-native through
// github.com/cogentcore/webgpu): Vulkan on Linux, Metal on macOS, Direct3D 12 on Windows.
//
// Every op is a WGSL compute kernel; the sources are the package's *.wgsl files (linear.wgsl,
// conv.wgsl, attention*.wgsl, norm.wgsl, elementwise.wgsl with RoPE, layout.wgsl, ...),
// composed with the shared code of common.wgsl. Numerics are exact in the
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
// # Attention
//
// Head dims up to 128 run attention_tiled.wgsl (queries and 8-key tiles of K and V in
// workgroup memory, online softmax); larger ones (the VAE's 512) run attention.wgsl, which
// reads K and V from the buffers directly. Neither holds a score matrix.
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
// matrix-product rate, which sets MaxDispatchFLOPs.
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
// MaxDispatchFLOPs (limits.go) is the work one dispatch may hold to run about
// DispatchSeconds (0.1 s) on this device, from the measured rate (a conservative 100 GFLOP/s
// before tuning); kernels that can split their work keep each dispatch under it, so that no
// dispatch trips the Windows (2 s) or macOS watchdog. Verified on lavapipe only (no watchdog
// there).
//
// # Measured (llvmpipe, LLVM 15, 2 cores: correctness only)
//
// Full conformance suite at TolScale 1: passes in about 35–60 s. Linear 256×3072→3072:
// 0.34 GFLOP/s (f32 and bf16 alike; the CPU backend does 180); attention seq 256, 8 heads,
// head dim 128, untiled kernel: 0.056 GFLOP/s (the tiled kernel is about 3× slower there:
// llvmpipe runs workgroup barriers slowly). Golden FLUX.2 transformer tests pass on it.
// `kleinbild bench --kernels --quick` (AMD EPYC, 2 cores shared, load average about 18):
// f32 FMA rate 34–38 GFLOP/s, copy bandwidth 13.5–15 GB/s, linear 0.4–2.8 GFLOP/s and
// attention 0.04–0.24 GFLOP/s at the scaled-down shapes (1–8 % and under 1 % of the FMA
// rate). No GPU was available to measure real rates.
//
// llvmpipe quirks handled here: it ends any loop after 65535 iterations in total per
// invocation (attention unrolls its inner loops; see attention.wgsl), and wgpu's blocking
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
	key    string // adapter and driver identity (tuning cache)
}
