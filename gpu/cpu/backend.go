package cpu

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"kleinbild/gpu"
)

// BLAS is what a GEMM provider must offer: single-precision GEMM on row-major data. The
// providers (packages openblas, accelerate, purego, onednn) satisfy it without importing this
// package; everything else runs as Go kernels in Backend.
type BLAS interface {
	// Name identifies the provider in logs and benchmarks ("openblas", "purego", ...).
	Name() string
	// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where op(A) is
	// m×k, op(B) is k×n and C is m×n; lda, ldb, ldc are the row strides.
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// BF16MatMuler is implemented by providers that multiply by bfloat16 weights natively.
type BF16MatMuler interface {
	// MatMulBF16 computes y[m,n] = x[m,k]·wᵀ where w is [n,k] bfloat16 bits (PyTorch Linear
	// layout) and the rows of y are ldy apart.
	MatMulBF16(y, x []float32, m, n, k int, w []uint16, ldy int)
}

// Backend is the CPU implementation of gpu.Backend: tensors are host memory (weights are
// zero-copy views of the caller's slices), ops run synchronously as Go kernels over a BLAS
// provider, splitting element-wise and row-wise work over GOMAXPROCS goroutines and issuing
// one Sgemm at a time (see the package documentation). It is safe for concurrent use: scratch
// buffers come from pools, and the sticky error and the memory accounting are guarded by a
// mutex (the error is shared by all callers).
type Backend struct {
	blas    BLAS
	bf16    BF16MatMuler // blas, when it multiplies bf16 natively
	workers int
	info    func() gpu.DeviceInfo

	// Scratch buffers reused across calls, one pool per purpose so that sizes stay stable:
	// float32 weight tiles (Linear), attention score tiles, im2col tiles and converted conv
	// kernels (Conv2D), 1+scale vectors (LayerNorm).
	linearTiles, attnScores, convCols, convKernels, vectors scratch
	// bitsTiles holds *[]uint16: bf16 weight tiles copied for a BF16MatMuler (Linear).
	bitsTiles sync.Pool

	mu  sync.Mutex
	err error
	mem gpu.MemStats
	// halted is set while an error from Interrupt is kept (see Interrupt): ops skip their
	// work then. cut records that one did, so that the error must reach the caller.
	halted, cut atomic.Bool
}

var _ gpu.Backend = (*Backend)(nil)

// New returns a Backend whose products run on blas and whose Go kernels use all available
// cores (GOMAXPROCS).
func New(blas BLAS) *Backend {
	b := &Backend{blas: blas, workers: runtime.GOMAXPROCS(0)}
	b.bf16, _ = blas.(BF16MatMuler)
	b.info = sync.OnceValue(func() gpu.DeviceInfo {
		return gpu.DeviceInfo{Name: cpuModel(), Kind: gpu.KindCPU, API: apiName(blas.Name()), MemoryBytes: totalMemory()}
	})
	return b
}

// BLAS returns the GEMM provider.
func (b *Backend) BLAS() BLAS { return b.blas }

// Name is the provider's name ("openblas", "purego", "onednn", "accelerate").
func (b *Backend) Name() string { return b.blas.Name() }

// Info describes the host processor: its model name, the GEMM provider and the RAM.
func (b *Backend) Info() gpu.DeviceInfo { return b.info() }

// apiName is a readable form of a provider name.
func apiName(name string) string {
	switch name {
	case "openblas":
		return "OpenBLAS"
	case "purego":
		return "Go (gonum)"
	case "onednn":
		return "oneDNN"
	case "accelerate":
		return "Accelerate"
	}
	return name
}

// cpuModel is /proc/cpuinfo's "model name" where there is one, else the architecture.
func cpuModel() string {
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				if v = strings.TrimSpace(v); v != "" {
					return v
				}
			}
		}
	}
	return runtime.GOARCH
}

// totalMemory is /proc/meminfo's MemTotal in bytes (Linux), else 0 (unknown).
func totalMemory() int64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// fail records err as the sticky error unless one is already kept; it reports err != nil.
func (b *Backend) fail(err error) bool {
	if err == nil {
		return false
	}
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
	return true
}

// takeErr returns and clears the sticky error.
func (b *Backend) takeErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.err
	b.err = nil
	b.halted.Store(false)
	b.cut.Store(false)
	return err
}

// Flush returns the first error since the last Read/Flush/Sync (ops run synchronously).
func (b *Backend) Flush() error { return b.takeErr() }

// Sync returns the first error since the last Read/Flush/Sync (ops run synchronously).
func (b *Backend) Sync() error { return b.takeErr() }

// Close does nothing: the memory of a CPU backend belongs to the Go heap.
func (b *Backend) Close() error { return nil }

// Memory reports the bytes of allocated tensors (Resident, Peak) and of viewed weights.
func (b *Backend) Memory() gpu.MemStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mem
}

// ResetPeak sets Peak to Resident.
func (b *Backend) ResetPeak() {
	b.mu.Lock()
	b.mem.Peak = b.mem.Resident
	b.mu.Unlock()
}

// buffer is host memory of one Backend: exactly one of f32 and bf16 is set (both nil once
// freed). A weight buffer views the caller's memory and is never written.
type buffer struct {
	owner  *Backend
	f32    []float32
	bf16   []uint16
	quant  []byte // packed blocks of a quantized weight (dtype one of gpu.QuantTypes)
	n      int    // elements of a quantized weight
	bytes  int64
	dtype  gpu.DType
	weight bool
	freed  bool // guarded by owner.mu
}

// Bytes is the size of the buffer.
func (m *buffer) Bytes() int64 { return m.bytes }

func shapeLen(op string, shape []int) (int, error) {
	if len(shape) == 0 {
		return 0, fmt.Errorf("cpu: %s: no shape", op)
	}
	n := 1
	for _, s := range shape {
		if s < 0 || (s > 0 && n > (1<<46)/s) {
			return 0, fmt.Errorf("cpu: %s: invalid shape %v", op, shape)
		}
		n *= s
	}
	return n, nil
}

// Alloc returns an uninitialised (zeroed) F32 or BF16 tensor of the given shape, counted in
// Resident.
func (b *Backend) Alloc(dtype gpu.DType, shape ...int) (gpu.Tensor, error) {
	n, err := shapeLen("Alloc", shape)
	if err != nil {
		return gpu.Tensor{}, err
	}
	m := &buffer{owner: b, bytes: int64(n) * int64(dtype.Size()), dtype: dtype}
	switch dtype {
	case gpu.F32:
		m.f32 = make([]float32, n)
	case gpu.BF16:
		m.bf16 = make([]uint16, n)
	default:
		return gpu.Tensor{}, fmt.Errorf("cpu: Alloc: unsupported dtype %v", dtype)
	}
	b.mu.Lock()
	b.mem.Resident += m.bytes
	b.mem.Peak = max(b.mem.Peak, b.mem.Resident)
	b.mu.Unlock()
	return gpu.NewTensor(m, 0, dtype, shape...), nil
}

// WeightF32 returns a read-only tensor viewing data (no copy; counted in Viewed). An empty
// shape means [len(data)].
func (b *Backend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	return b.weight(gpu.F32, len(data), &buffer{owner: b, f32: data, bytes: int64(len(data)) * 4, dtype: gpu.F32, weight: true}, shape)
}

// WeightBF16 returns a read-only tensor viewing bits (bfloat16; no copy; counted in Viewed).
// An empty shape means [len(bits)].
func (b *Backend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	return b.weight(gpu.BF16, len(bits), &buffer{owner: b, bf16: bits, bytes: int64(len(bits)) * 2, dtype: gpu.BF16, weight: true}, shape)
}

// WeightQuant returns a read-only tensor viewing raw, the packed blocks of a quantized
// dtype (no copy; counted in Viewed). Linear dequantizes it a tile of rows at a time.
func (b *Backend) WeightQuant(dtype gpu.DType, raw []byte, shape ...int) (gpu.Tensor, error) {
	n, err := gpu.CheckQuant(dtype, raw, shape)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("cpu: %w", err)
	}
	return b.weight(dtype, n, &buffer{owner: b, quant: raw, n: n, bytes: int64(len(raw)), dtype: dtype, weight: true}, shape)
}

func (b *Backend) weight(dtype gpu.DType, have int, m *buffer, shape []int) (gpu.Tensor, error) {
	if len(shape) == 0 {
		shape = []int{have}
	}
	n, err := shapeLen("Weight", shape)
	if err != nil {
		return gpu.Tensor{}, err
	}
	if n != have {
		return gpu.Tensor{}, fmt.Errorf("cpu: Weight%s: %d values do not fill shape %v", strings.ToUpper(dtype.String()), have, shape)
	}
	b.mu.Lock()
	b.mem.Viewed += m.bytes
	b.mu.Unlock()
	return gpu.NewTensor(m, 0, dtype, shape...), nil
}

// Free releases t's buffer (a weight's view is only dropped). Freeing twice, or the zero
// Tensor, does nothing; a tensor of another backend is an error kept for the next Sync.
func (b *Backend) Free(t gpu.Tensor) {
	if t.IsZero() {
		return
	}
	m, ok := t.Buffer().(*buffer)
	if !ok || m.owner != b {
		b.fail(fmt.Errorf("cpu: Free: %v belongs to another backend", t))
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.freed {
		return
	}
	m.freed = true
	m.f32, m.bf16, m.quant = nil, nil, nil
	if m.weight {
		b.mem.Viewed -= m.bytes
	} else {
		b.mem.Resident -= m.bytes
	}
}

// Upload copies src into the F32 tensor dst (len(src) == dst.Len()).
func (b *Backend) Upload(dst gpu.Tensor, src []float32) {
	a := b.args("Upload")
	d := a.out("dst", dst)
	if a.failed() {
		return
	}
	if len(src) != len(d) {
		b.fail(fmt.Errorf("cpu: Upload: %d values into %v", len(src), dst))
		return
	}
	copy(d, src)
}

// Read copies src (F32, or BF16 widened) into dst (len(dst) == src.Len()) and returns the
// first error since the last Read/Flush/Sync.
func (b *Backend) Read(dst []float32, src gpu.Tensor) error {
	a := b.args("Read")
	m := a.buf("src", src)
	switch {
	case a.failed():
	case len(dst) != src.Len():
		b.fail(fmt.Errorf("cpu: Read: %v into %d values", src, len(dst)))
	case src.DType() != gpu.F32 && src.DType() != gpu.BF16:
		b.fail(fmt.Errorf("cpu: Read: %v is not f32 or bf16", src))
	case src.DType() == gpu.BF16:
		widenBF16(dst, m.bf16[src.Offset():src.Offset()+src.Len()])
	default:
		copy(dst, m.f32[src.Offset():src.Offset()+src.Len()])
	}
	return b.takeErr()
}

// args resolves the tensors of one op to host slices, recording the first problem.
type args struct {
	b   *Backend
	op  string
	err error
}

func (b *Backend) args(op string) args { return args{b: b, op: op} }

// failed records the first problem as the backend's error and reports whether there was one,
// or whether the backend is interrupted (the op is skipped then).
func (a *args) failed() bool { return a.b.fail(a.err) || a.b.interrupted() }

func (a *args) set(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("cpu: "+a.op+": "+format, v...)
	}
}

// buf returns t's buffer after checking that it belongs to this backend, is not freed and
// holds t's elements in t's dtype.
func (a *args) buf(name string, t gpu.Tensor) *buffer {
	if a.err != nil {
		return nil
	}
	if t.IsZero() {
		a.set("%s is missing", name)
		return nil
	}
	m, ok := t.Buffer().(*buffer)
	if !ok || m.owner != a.b {
		a.set("%s %v belongs to another backend", name, t)
		return nil
	}
	a.b.mu.Lock()
	freed := m.freed
	a.b.mu.Unlock()
	if freed {
		a.set("%s %v is freed", name, t)
		return nil
	}
	size := len(m.f32)
	switch {
	case t.DType() == gpu.BF16:
		size = len(m.bf16)
	case t.DType().Quantized():
		size = m.n
		if m.quant == nil {
			size = 0
		}
	}
	if t.DType() != m.dtype || t.Offset() < 0 || t.Len() < 0 || t.Offset() > size-t.Len() {
		a.set("%s %v does not fit its buffer", name, t)
		return nil
	}
	return m
}

// in returns the elements of the F32 tensor t.
func (a *args) in(name string, t gpu.Tensor) []float32 {
	m := a.buf(name, t)
	if m == nil {
		return nil
	}
	if t.DType() != gpu.F32 {
		a.set("%s is %v, want f32", name, t.DType())
		return nil
	}
	return m.f32[t.Offset() : t.Offset()+t.Len()]
}

// out is in for a tensor the op writes: weights are refused.
func (a *args) out(name string, t gpu.Tensor) []float32 {
	s := a.in(name, t)
	if a.err == nil && t.Buffer().(*buffer).weight {
		a.set("%s %v is a read-only weight", name, t)
		return nil
	}
	return s
}

// opt is in for an optional operand: nil for the zero Tensor.
func (a *args) opt(name string, t gpu.Tensor) []float32 {
	if t.IsZero() {
		return nil
	}
	return a.in(name, t)
}

// matrix returns the weight t [out, in] (F32 or BF16).
func (a *args) matrix(name string, t gpu.Tensor) matrix {
	m := a.buf(name, t)
	if m == nil {
		return matrix{}
	}
	out, in, _ := gpu.MatrixDims(t)
	w := matrix{out: out, in: in, isBF16: t.DType() == gpu.BF16}
	lo, hi := t.Offset(), t.Offset()+out*in
	if d := t.DType(); d.Quantized() {
		// CheckLinear made the offset and rows whole blocks.
		w.quant, w.qtype = m.quant[d.PackedBytes(lo):d.PackedBytes(hi)], d
		return w
	}
	if w.isBF16 {
		w.bf16 = m.bf16[lo:hi]
	} else {
		w.f32 = m.f32[lo:hi]
	}
	return w
}

// disjoint records an error when the first n1 elements of t1 and the first n2 of t2 overlap
// (both already resolved).
func (a *args) disjoint(name1 string, t1 gpu.Tensor, n1 int, name2 string, t2 gpu.Tensor, n2 int) {
	if a.err != nil || t1.Buffer() != t2.Buffer() || n1 == 0 || n2 == 0 {
		return
	}
	if t1.Offset() < t2.Offset()+n2 && t2.Offset() < t1.Offset()+n1 {
		a.set("%s overlaps %s", name1, name2)
	}
}

// matrix is a weight stored [out, in] row-major as in PyTorch's Linear (a conv kernel
// [O, C, KH, KW] is matrix{out: O, in: C·KH·KW}). Exactly one of f32, bf16 and quant is set;
// all are usually views into a memory-mapped checkpoint and are never modified.
type matrix struct {
	out, in int
	isBF16  bool
	f32     []float32
	bf16    []uint16
	quant   []byte    // packed blocks of qtype (Linear only)
	qtype   gpu.DType // the quantized dtype of quant, or 0
}
