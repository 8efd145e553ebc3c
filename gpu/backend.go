package gpu

// Backend is a compute device: it owns tensors and runs every operation of the three models
// (Qwen3, FLUX.2 transformer, FLUX.2 VAE) on them. Implementations: package gpu/cpu (OpenBLAS,
// Accelerate, pure Go, oneDNN underneath) and gpu/webgpu. Package gpu/gputest is the
// conformance suite every implementation runs from its own test.
//
// # Queueing, synchronisation and errors
//
// Ops are enqueued: they return at once and run in order, asynchronously where the backend can
// (the CPU backend runs them synchronously). The host waits only at Read, Sync and Flush.
// Ops do not return errors and never panic on bad arguments: the first failure (a length that
// does not match the stated dimensions, a tensor of another backend, out of memory, a lost
// device) is kept and returned by the next Read, Flush or Sync, which clear it; ops enqueued
// after a failure may be skipped. Models call Flush between blocks (a cheap error and
// cancellation point) and Read where the host needs data; backends whose single ops run long
// also stop part-way through on a cancel (Interrupter).
//
// # Memory
//
// Tensors come from Alloc (uninitialised activations), Weight* (read-only model weights) and
// Upload (host data into an existing tensor). Free releases a tensor's buffer. Views (Slice,
// Reshape) share memory. Outputs may alias inputs only where an op says so.
//
// Dimensions are passed explicitly as in BLAS: every op checks that its tensors hold at least
// the elements its dimensions address (exact lengths where stated) and fails otherwise.
type Backend interface {
	// Name identifies the backend ("openblas", "purego", "onednn", "accelerate", "webgpu").
	Name() string
	// Info describes the device the backend runs on.
	Info() DeviceInfo

	// Alloc returns an uninitialised tensor (contents undefined).
	Alloc(dtype DType, shape ...int) (Tensor, error)
	// WeightF32 and WeightBF16 return read-only tensors holding data. The caller keeps data
	// unchanged for the tensor's life: the CPU backend views it without copying (model
	// weights stay views of the memory-mapped checkpoint, possibly read-only mappings that
	// fault when written); device backends copy it once. Ops never write to weight tensors.
	WeightF32(data []float32, shape ...int) (Tensor, error)
	WeightBF16(bits []uint16, shape ...int) (Tensor, error)
	// WeightQuant returns a read-only tensor of a quantized dtype (Q8_0, Q4_K, ...: ggml's
	// block formats, as GGUF stores them) holding raw, the packed blocks of the elements of
	// shape in row-major order. The last dimension must be a whole number of blocks and raw
	// exactly dtype.PackedBytes of the elements. As with WeightBF16, the CPU backend views
	// raw (the caller keeps it unchanged) and device backends copy it, still packed. Such a
	// tensor is only a Linear weight; a backend that lacks a type returns an error.
	WeightQuant(dtype DType, raw []byte, shape ...int) (Tensor, error)
	// Upload copies src into the F32 tensor dst (len(src) == dst.Len()); src may be reused
	// as soon as Upload returns.
	Upload(dst Tensor, src []float32)
	// Read waits for the queued work, copies src (F32 or BF16, widened) into dst
	// (len(dst) == src.Len()) and returns the first error since the last Read/Flush/Sync.
	Read(dst []float32, src Tensor) error
	// Free releases the buffer t views (all views of it become invalid). Freeing a weight
	// that views host memory only drops the view. Freeing the zero Tensor does nothing.
	Free(t Tensor)
	// Flush submits the queued work without waiting for it, except that it may wait for
	// the work submitted by the previous Flush, so the host stays at most one Flush ahead of
	// the device and cancellation checks between Flushes take effect promptly. It returns
	// the first error since the last Read/Flush/Sync.
	Flush() error
	// Sync waits until all queued work is done and returns the first error since the last
	// Read/Flush/Sync.
	Sync() error
	// Memory reports the bytes the backend holds now and at peak.
	Memory() MemStats
	// ResetPeak sets the peak of Memory to the bytes held now.
	ResetPeak()
	// Close releases the device. The backend and its tensors must not be used afterwards.
	Close() error

	// Linear computes y[rows, out] = x[rows, in]·wᵀ + bias as torch.nn.Linear, where w is
	// [out, in] (out, in = w's shape; F32 or BF16, widened exactly, or a quantized dtype,
	// dequantized exactly as ggml's dequantize_row_* does, products summed in float32) and
	// bias [out] or zero. y must not overlap x.
	Linear(y, x, w, bias Tensor, rows int)
	// Attention computes out = softmax(q·kᵀ·scale + mask)·v per head (see AttnParams for
	// layout, grouped-query heads and masks) without materialising the [SeqQ, SeqK] score
	// matrix. Masked scores weigh exactly 0. out must not overlap q, k or v.
	Attention(out, q, k, v Tensor, p AttnParams)

	// RMSNorm computes y[r] = x[r]·rsqrt(mean(x[r]²) + eps)·weight for rows of dim values
	// (weight [dim] or zero), the mean rounded to float32 before eps is added (torch).
	// y may alias x.
	RMSNorm(y, x, weight Tensor, rows, dim int, eps float32)
	// HeadRMSNorm applies RMSNorm(headDim) with weight [headDim] in place to each of the
	// heads consecutive headDim-wide slices at the start of every row of x; rows are stride
	// elements apart (per-head q/k norms inside fused projections).
	HeadRMSNorm(x, weight Tensor, rows, stride, heads, headDim int, eps float32)
	// LayerNorm computes y[r] = (x[r] − mean)/sqrt(var + eps)·(1 + scale) + shift for rows
	// of dim values (biased variance; scale and shift [dim], either may be zero: then the
	// factor is 1 or the shift 0). It is FLUX.2's modulated norm, and with scale zero and
	// shift zero a LayerNorm without affine parameters. y may alias x.
	LayerNorm(y, x, scale, shift Tensor, rows, dim int, eps float32)
	// GroupNorm normalises x [channels, hw] (one image, channels first) over groups of
	// channels/groups channels and applies per-channel gamma and beta ([channels] or zero:
	// 1 and 0). y may alias x.
	GroupNorm(y, x, gamma, beta Tensor, channels, hw, groups int, eps float32)

	// SiLU computes y = x·sigmoid(x) element-wise (len(y) == len(x)). y may alias x.
	SiLU(y, x Tensor)
	// SwiGLU computes y[r·yStride + j] = silu(x[r·xStride + j])·x[r·xStride + hidden + j]
	// for j < hidden (the gate half first); a zero stride means dense (2·hidden for x,
	// hidden for y). y must not overlap x.
	SwiGLU(y, x Tensor, rows, hidden, xStride, yStride int)
	// Add computes y = a + b element-wise (equal lengths). y may alias a or b.
	Add(y, a, b Tensor)
	// Mul computes y = a·b element-wise (equal lengths). y may alias a or b.
	Mul(y, a, b Tensor)
	// GatedAdd computes x[r] += gate ⊙ y[r] for rows of dim values (gate [dim]), FLUX.2's
	// gated residual: each product rounded to float32 before the add.
	GatedAdd(x, y, gate Tensor, rows, dim int)
	// AddScaled computes y += float32(s·x) element-wise (the flow-matching Euler step
	// x += (σ' − σ)·v, rounded as the reference scheduler does).
	AddScaled(y, x Tensor, s float32)
	// Guidance computes cond = uncond + float32(scale·float32(cond − uncond)) element-wise
	// (classifier-free guidance).
	Guidance(cond, uncond Tensor, scale float32)
	// Copy copies src into dst (equal lengths and dtypes; no overlap): concatenation and
	// slicing of token ranges.
	Copy(dst, src Tensor)

	// RoPE applies rotary position embeddings in place to x [seq rows stride apart, each
	// holding heads headDim-wide slices from its start], with per-position tables cos and
	// sin [seq, headDim]. interleaved (FLUX): pairs (2i, 2i+1): x'[2i] = x[2i]·cos[2i] −
	// x[2i+1]·sin[2i], x'[2i+1] = x[2i+1]·cos[2i+1] + x[2i]·sin[2i+1]. rotate-half (Qwen3):
	// pairs (i, i + headDim/2): x' = x·cos + rotate_half(x)·sin, rotate_half(x) =
	// [−x[half:], x[:half]].
	RoPE(x, cos, sin Tensor, seq, heads, headDim, stride int, interleaved bool)

	// Conv2D computes out [OutC, outH, outW] = conv(in [InC, InH, InW], w) + bias for one
	// image, channels first, w [OutC, InC·KH·KW] (F32 or BF16; OutC = its first dimension),
	// bias [OutC] or zero. out must not overlap in.
	Conv2D(out, in, w, bias Tensor, p ConvParams)
	// UpsampleNearest2x doubles the height and width of x [channels, h, w] into
	// y [channels, 2h, 2w]. y must not overlap x.
	UpsampleNearest2x(y, x Tensor, channels, h, w int)
	// Transpose writes y [cols, rows] = xᵀ for x [rows, cols]: latent (un)packing between
	// [C, h·w] and tokens [h·w, C], and the VAE attention's token layout. y must not overlap x.
	Transpose(y, x Tensor, rows, cols int)
	// Patchify folds 2×2 pixel patches of x [c, h, w] (h, w even) into channels, y
	// [4c, h/2, w/2] with channel c·4 + dy·2 + dx (the pipeline's _patchify_latents).
	// Unpatchify is its inverse: x [c, h, w] (c a multiple of 4) to y [c/4, 2h, 2w]. y must
	// not overlap x.
	Patchify(y, x Tensor, c, h, w int)
	Unpatchify(y, x Tensor, c, h, w int)
	// BatchNorm applies the pipeline's latent BatchNorm statistics per channel to x
	// [channels, hw]: y = (x − mean)/std, or with inverse y = float32(x·std) + mean (std is
	// sqrt(running_var + eps), both [channels]). y may alias x.
	BatchNorm(y, x, mean, std Tensor, channels, hw int, inverse bool)
}

// AttnParams describes a scaled-dot-product attention call. Rows of q, k, v and out are
// [heads·headDim] wide (kvHeads·headDim for k and v) and stride apart; a zero stride means
// densely packed. Grouped-query attention: query head h uses key/value head
// h / (Heads/KVHeads).
type AttnParams struct {
	SeqQ, SeqK                           int
	Heads, KVHeads, HeadDim              int
	QStride, KStride, VStride, OutStride int
	Scale                                float32 // usually 1/sqrt(HeadDim); 0 means 1/sqrt(HeadDim)
	Causal                               bool    // query i sees keys j <= i (needs SeqQ == SeqK)
	KeyValid                             int     // keys j >= KeyValid are masked (0: all valid)
}

// ConvParams describes a 2-D convolution of one image [InC, InH, InW] (channels first) by a
// kernel [OutC, InC·KH·KW] ([OutC, InC, KH, KW] row-major). Padding is zeros and may differ
// per side (the FLUX VAE pads only right and bottom before its stride-2 convs). A Stride of 0
// means 1.
type ConvParams struct {
	InC, InH, InW                        int
	KH, KW, Stride                       int
	PadTop, PadLeft, PadBottom, PadRight int
}

// DeviceKind says what kind of processor a backend runs on.
type DeviceKind string

// The kinds of devices.
const (
	KindCPU        DeviceKind = "cpu"        // the host processor (CPU backends)
	KindDiscrete   DeviceKind = "discrete"   // a discrete GPU
	KindIntegrated DeviceKind = "integrated" // a GPU sharing the host's memory
	KindSoftware   DeviceKind = "software"   // a GPU API emulated on the CPU (lavapipe, WARP)
	KindOther      DeviceKind = "other"
)

// DeviceInfo describes the device of a backend.
type DeviceInfo struct {
	Name string     // "llvmpipe (LLVM 15.0.6, 256 bits)", "AMD Ryzen 9 7950X", ...
	Kind DeviceKind // cpu, discrete, integrated, software
	API  string     // "OpenBLAS", "Accelerate", "Go", "oneDNN", "Vulkan", "Metal", "D3D12"
	// MemoryBytes is the memory the device can hold tensors in (0 if unknown). For CPU
	// backends it is the host's RAM.
	MemoryBytes int64
	// MaxBufferBytes is the largest single buffer (0: no limit beyond memory);
	// MaxBindingBytes the largest range one kernel argument may span.
	MaxBufferBytes, MaxBindingBytes int64
}

// MemStats is a backend's memory accounting.
type MemStats struct {
	// Resident is the bytes of tensors the backend holds now: allocations and copied
	// weights (on a GPU: device memory in use).
	Resident int64
	// Peak is the highest Resident since the backend was made or ResetPeak was called.
	Peak int64
	// Viewed is the bytes of host memory the backend views without copying (CPU weights on
	// the memory-mapped checkpoint); not counted in Resident.
	Viewed int64
}
