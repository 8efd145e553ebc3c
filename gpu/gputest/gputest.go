package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// Options adapts the suite to a backend.
type Options struct {
	// BF16Activations says that the backend's Linear rounds its activations to bfloat16 when
	// the weight is BF16 (onednn): that Linear is compared with the float64 product of
	// bf16-rounded x and w. Other ops are unaffected.
	BF16Activations bool
	// F16Linear says that the backend's Linear on BF16 weights multiplies float16 operands
	// with float32 sums (vulkan's fast precision): x scaled per row by a power of two and
	// both rounded to float16 (refmath.F16Rows, F16Weights). TestLinear and TestLinearAdd
	// compare it with the float32 reference at TolF16Linear and with the float64 product of
	// the rounded operands at the usual tolerance; TestConcurrentUse with the latter.
	F16Linear bool
	// F16Conv says that the backend's Conv2D multiplies float16 operands with float32 sums
	// (vulkan's fast precision): the image scaled by one power of two and both rounded to
	// float16 (refmath.F16Image, F16Weights). TestConv2D compares it with the float64
	// convolution of the rounded operands at the usual tolerance and with the float32
	// reference at TolF16Linear.
	F16Conv bool
	// F16Attention says that the backend's Attention multiplies float16 tiles of Q, K, V and
	// P with float32 sums and softmax (vulkan's fast precision): TestAttention compares it
	// with the float64 reference at TolF16Attention (the non-finite cases as usual).
	F16Attention bool
	// TolScale multiplies every tolerance except the exact ones (0 means 1). Backends should
	// pass at 1; a larger value is for investigating one that sums in another order.
	TolScale float64
	// Short uses smaller sizes and skips the largest cases (for slow software devices and
	// for go test -short).
	Short bool
	// LogErrors logs the rel-L2 and max abs error of every comparison (a test binary sets it
	// from its own flag, e.g. -errors).
	LogErrors bool
	// NoConcurrency skips TestConcurrentUse for a backend that does not support calls from
	// several goroutines at once (the CPU backends do).
	NoConcurrency bool
	// Quant lists the quantized dtypes the backend's WeightQuant and Linear support (see
	// TestLinearQuant); WeightQuant must refuse the others.
	Quant []gpu.DType
}

// A test is one conformance test.
type test struct {
	name string
	fn   func(t *testing.T, b gpu.Backend, o Options)
}

var tests = []test{
	{"AllocUploadRead", TestAllocUploadRead},
	{"Memory", TestMemory},
	{"Errors", TestErrors},
	{"Linear", TestLinear},
	{"LinearAdd", TestLinearAdd},
	{"LinearQuant", TestLinearQuant},
	{"Attention", TestAttention},
	{"Conv2D", TestConv2D},
	{"LayerNorm", TestLayerNorm},
	{"RMSNorm", TestRMSNorm},
	{"HeadRMSNorm", TestHeadRMSNorm},
	{"GroupNorm", TestGroupNorm},
	{"SiLU", TestSiLU},
	{"SwiGLU", TestSwiGLU},
	{"Elementwise", TestElementwise},
	{"GatedAdd", TestGatedAdd},
	{"Guidance", TestGuidance},
	{"Copy", TestCopy},
	{"RoPE", TestRoPE},
	{"UpsampleNearest2x", TestUpsampleNearest2x},
	{"Transpose", TestTranspose},
	{"Patchify", TestPatchify},
	{"BatchNorm", TestBatchNorm},
	{"ConcurrentUse", TestConcurrentUse},
}

// Run runs every conformance test on b as subtests of t.
func Run(t *testing.T, b gpu.Backend, opts Options) {
	t.Helper()
	t.Logf("backend %s on %+v", b.Name(), b.Info())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b, opts) })
	}
}

// --- Tolerances and comparisons --------------------------------------------------------------

// tolGemm is the rel-L2 tolerance for float32 sums of k products: float32 rounding grows like
// √k (measured: 1.2e-6 at k = 4608, 7e-7 for attention at head dim 128, 1e-7 at k ≤ 30).
func tolGemm(k int) float64 { return 2e-7 * math.Sqrt(float64(max(k, 16))) }

// TolF16Linear is the rel-L2 tolerance of a Linear on float16 operands (Options.F16Linear)
// against the float32 reference: each operand carries a relative rounding error of at most
// 2⁻¹¹ (about 2e-4 rel-L2 on a sum of products of random sign); measured 1.4e-4–2.1e-4 on
// the suite's shapes and 3.7e-4 on its single product (lavapipe, the twin kernel).
const TolF16Linear = 1e-3

// TolF16Attention is the rel-L2 tolerance of attention on float16 tiles
// (Options.F16Attention) against the float64 reference: Q, K, V and the weights P each carry
// a relative rounding error of at most 2⁻¹¹.
const TolF16Attention = 2e-3

// tolElem is the rel-L2 tolerance of element-wise and row-wise float32 kernels (measured
// ≤ 1e-7: a few float32 roundings per element).
const tolElem = 3e-7

// divULPs is the error WGSL allows a float32 division x / y (2.5 ulp; +, −, · are correctly
// rounded): https://www.w3.org/TR/WGSL/#concrete-float-accuracy.
const divULPs = 2.5

// tolDiv is tolElem for kernels that divide once per element or row (SiLU's sigmoid, the
// norms' means): a division may add divULPs ulp, at most divULPs·2⁻²³ relative error.
const tolDiv = tolElem + divULPs*0x1p-23

// env holds the state of one test: the backend, its options, a random source and the tensors
// made for the current case.
type env struct {
	t    *testing.T
	b    gpu.Backend
	o    Options
	r    *rand.Rand
	bufs []*buf
	next int // rotates the offsets of new tensors
}

func newEnv(t *testing.T, b gpu.Backend, o Options) *env {
	t.Helper()
	if o.TolScale == 0 {
		o.TolScale = 1
	}
	// A fixed seed per test name: fresh-looking values, reproducible failures.
	var h uint64 = 1469598103934665603
	for _, c := range t.Name() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	e := &env{t: t, b: b, o: o, r: rand.New(rand.NewPCG(h, 42))}
	// Start clean: an error left by an earlier test is not this test's.
	_ = b.Sync()
	t.Cleanup(e.free)
	return e
}

// buf is a tensor t viewing elements [pad, pad+n) of a larger buffer base whose other
// elements (the guard) must never change.
type buf struct {
	t      gpu.Tensor
	base   gpu.Tensor
	pad, n int
	init   []float32 // the base's contents as uploaded (widened for BF16)
	input  bool      // the whole base must stay as uploaded
}

// pads are the offsets of successive tensors inside their buffers (odd ones included: BF16
// views at odd offsets start inside a 32-bit word).
var pads = []int{0, 3, 1, 0, 5, 2, 7}

func (e *env) pad() int {
	p := pads[e.next%len(pads)]
	e.next++
	return p
}

// guardValues fills x with finite values no op produces by chance.
func guardValues(x []float32) {
	for i := range x {
		x[i] = 1234.5 + float32(i%7)
	}
}

// tensor uploads data into a new F32 tensor of the given shape (default [len(data)]) placed at
// a rotating offset inside a larger buffer. input marks data the op must not change.
func (e *env) tensor(data []float32, input bool, shape ...int) *buf {
	e.t.Helper()
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	p := e.pad()
	tail := 0
	if p > 0 {
		tail = 4
	}
	n := len(data)
	base, err := e.b.Alloc(gpu.F32, p+n+tail)
	if err != nil {
		e.t.Fatalf("Alloc(F32, %d): %v", p+n+tail, err)
	}
	init := make([]float32, p+n+tail)
	guardValues(init)
	copy(init[p:], data)
	e.b.Upload(base, init)
	bf := &buf{t: base.Slice(p, p+n).Reshape(shape...), base: base, pad: p, n: n, init: init, input: input}
	e.bufs = append(e.bufs, bf)
	return bf
}

// in uploads an input tensor (checked unchanged by intact).
func (e *env) in(data []float32, shape ...int) *buf { return e.tensor(data, true, shape...) }

// out makes an output tensor of n NaNs.
func (e *env) out(n int, shape ...int) *buf { return e.tensor(refmath.NaNs(n), false, shape...) }

// weight makes a read-only F32 weight tensor (WeightF32) viewing data at a rotating offset.
func (e *env) weight(data []float32, shape ...int) *buf {
	e.t.Helper()
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	p := e.pad()
	init := make([]float32, p+len(data))
	guardValues(init)
	copy(init[p:], data)
	base, err := e.b.WeightF32(init, len(init))
	if err != nil {
		e.t.Fatalf("WeightF32(%d values): %v", len(init), err)
	}
	bf := &buf{t: base.Slice(p, p+len(data)).Reshape(shape...), base: base, pad: p, n: len(data), init: init, input: true}
	e.bufs = append(e.bufs, bf)
	return bf
}

// weightBF16 makes a read-only BF16 weight tensor (WeightBF16) viewing bits at a rotating
// offset.
func (e *env) weightBF16(bits []uint16, shape ...int) *buf {
	e.t.Helper()
	if len(shape) == 0 {
		shape = []int{len(bits)}
	}
	p := e.pad()
	raw := make([]uint16, p+len(bits))
	for i := range p {
		raw[i] = 0x4480 + uint16(i) // 1024, 1028, ...
	}
	copy(raw[p:], bits)
	base, err := e.b.WeightBF16(raw, len(raw))
	if err != nil {
		e.t.Fatalf("WeightBF16(%d values): %v", len(raw), err)
	}
	init := make([]float32, len(raw))
	for i, v := range raw {
		init[i] = math.Float32frombits(uint32(v) << 16)
	}
	bf := &buf{t: base.Slice(p, p+len(bits)).Reshape(shape...), base: base, pad: p, n: len(bits), init: init, input: true}
	e.bufs = append(e.bufs, bf)
	return bf
}

// read returns the contents of x's view after checking that its guard is intact (and, for an
// input, that nothing changed).
func (e *env) read(label string, x *buf) []float32 {
	e.t.Helper()
	all := make([]float32, x.base.Len())
	if err := e.b.Read(all, x.base); err != nil {
		e.t.Fatalf("%s: Read: %v", label, err)
	}
	lo, hi := x.pad, x.pad+x.n
	if x.input {
		lo, hi = 0, 0
	}
	for i, v := range all {
		if i >= lo && i < hi {
			continue
		}
		if math.Float32bits(v) != math.Float32bits(x.init[i]) {
			what := "guard element"
			if i >= x.pad && i < x.pad+x.n {
				what = "input element"
			}
			e.t.Fatalf("%s: %s %d of %v changed from %v to %v", label, what, i-x.pad, x.t, x.init[i], v)
		}
	}
	return all[x.pad : x.pad+x.n]
}

// intact checks every input tensor of the current case (unchanged) and the guards of every
// output.
func (e *env) intact(label string) {
	e.t.Helper()
	for _, x := range e.bufs {
		e.read(label, x)
	}
}

// sync waits for the queued work and fails on an error.
func (e *env) sync(label string) {
	e.t.Helper()
	if err := e.b.Sync(); err != nil {
		e.t.Fatalf("%s: Sync: %v", label, err)
	}
}

// done checks that the current case left its inputs and guards alone and frees its tensors.
func (e *env) done(label string) {
	e.t.Helper()
	e.intact(label)
	e.sync(label)
	e.free()
}

// free frees the tensors of the current case.
func (e *env) free() {
	for _, x := range e.bufs {
		e.b.Free(x.base)
	}
	e.bufs = nil
}

// tol scales a tolerance by Options.TolScale.
func (e *env) tol(tol float64) float64 { return tol * e.o.TolScale }

// check compares got with the float64 reference: every element finite (NaN poison caught),
// rel-L2 ≤ tol and max abs ≤ 10·tol·max|ref|.
func (e *env) check(label string, got []float32, want []float64, tol float64) {
	e.t.Helper()
	tol = e.tol(tol)
	if len(got) != len(want) {
		e.t.Fatalf("%s: got %d values, want %d", label, len(got), len(want))
	}
	var num, den, maxAbs, maxRef float64
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(g) || math.IsInf(g, 0) {
			e.t.Fatalf("%s: element %d is %v (want %v): not written or overflowed", label, i, g, w)
		}
		d := g - w
		num += d * d
		den += w * w
		maxAbs = max(maxAbs, math.Abs(d))
		maxRef = max(maxRef, math.Abs(w))
	}
	rel := math.Sqrt(num / max(den, 1e-300))
	if den == 0 {
		rel = math.Sqrt(num)
	}
	if e.o.LogErrors {
		e.t.Logf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g", label, rel, tol, maxAbs)
	}
	if rel > tol || maxAbs > 10*tol*max(maxRef, 1e-30) {
		e.t.Errorf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g (max |ref| %.3g)", label, rel, tol, maxAbs, maxRef)
	}
}

// checkExact requires bit-for-bit equality with want (NaN never matches).
func (e *env) checkExact(label string, got, want []float32) {
	e.t.Helper()
	if len(got) != len(want) {
		e.t.Fatalf("%s: got %d values, want %d", label, len(got), len(want))
	}
	for i, w := range want {
		if got[i] != w || math.IsNaN(float64(got[i])) {
			e.t.Fatalf("%s: element %d = %v, want %v", label, i, got[i], w)
		}
	}
	if e.o.LogErrors {
		e.t.Logf("%s: exact (%d values)", label, len(want))
	}
}

// checkMulAdd is checkExact for ops whose formula ends in a multiply-add c + a·b that a shader
// compiler may contract into one FMA (see doc.go): each element must equal, bit for bit, the
// unfused result (want) or the fused one (fused), and at least one is required.
func (e *env) checkMulAdd(label string, got, want, fused []float32) {
	e.t.Helper()
	if len(got) != len(want) || len(fused) != len(want) {
		e.t.Fatalf("%s: got %d values, want %d", label, len(got), len(want))
	}
	nFused := 0
	for i, w := range want {
		switch {
		case math.IsNaN(float64(got[i])):
			e.t.Fatalf("%s: element %d is NaN, want %v", label, i, w)
		case got[i] == w:
		case got[i] == fused[i]:
			nFused++
		default:
			e.t.Fatalf("%s: element %d = %v, want %v (or %v fused)", label, i, got[i], w, fused[i])
		}
	}
	if e.o.LogErrors {
		e.t.Logf("%s: exact (%d values, %d of them as a fused multiply-add)", label, len(want), nFused)
	}
}

// checkULP requires every element within ulps ulp (WGSL's definition, ulp32) of the exact
// value, for ops whose formula is one operation with an ulp bound (NaN never matches).
func (e *env) checkULP(label string, got []float32, exact []float64, ulps float64) {
	e.t.Helper()
	if len(got) != len(exact) {
		e.t.Fatalf("%s: got %d values, want %d", label, len(got), len(exact))
	}
	worst := 0.0
	for i, x := range exact {
		off := ulpsOff(got[i], x)
		if !(off <= ulps) {
			e.t.Fatalf("%s: element %d = %v, want %v within %g ulp (%.3g ulp off)", label, i, got[i], float32(x), ulps, off)
		}
		worst = max(worst, off)
	}
	if e.o.LogErrors {
		e.t.Logf("%s: within %.3g ulp (bound %g, %d values)", label, worst, ulps, len(exact))
	}
}

// ulpsOff is how many ulp32(x) got is from x (NaN when got is NaN).
func ulpsOff(got float32, x float64) float64 { return math.Abs(float64(got)-x) / ulp32(x) }

// ulp32 is WGSL's ulp of a finite x in float32: the least distance between two different
// finite float32 values a ≤ x ≤ b (the spacing around x; at a power of two, the smaller one).
func ulp32(x float64) float64 {
	f := float32(x)
	switch {
	case float64(f) < x:
		return float64(math.Nextafter32(f, float32(math.Inf(1)))) - float64(f)
	case float64(f) > x:
		return float64(f) - float64(math.Nextafter32(f, float32(math.Inf(-1))))
	}
	up := float64(math.Nextafter32(f, float32(math.Inf(1)))) - float64(f)
	down := float64(f) - float64(math.Nextafter32(f, float32(math.Inf(-1))))
	return min(up, down)
}

// fma32 is float32(a·b + c) rounded once from the exact value (through float64: a·b of two
// float32 is exact there, so only the final float64 rounding precedes the float32 one; the
// double rounding differs from a single one in rare ties only).
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// checkUntouched fails if any element of x outside the rows [r·stride, r·stride+width) differs
// from orig (the gaps of a strided matrix must survive an op).
func (e *env) checkUntouched(label string, x, orig []float32, rows, width, stride int) {
	e.t.Helper()
	for i := range x {
		r, c := i/stride, i%stride
		if r < rows && c < width {
			continue
		}
		if math.Float32bits(x[i]) != math.Float32bits(orig[i]) {
			e.t.Fatalf("%s: element %d (row %d col %d) outside the %d×%d view was overwritten", label, i, r, c, rows, width)
		}
	}
}

// --- Data ------------------------------------------------------------------------------------

// randn returns n values drawn from N(mean, 1).
func (e *env) randn(n int, mean float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(mean + e.r.NormFloat64())
	}
	return x
}

// randScaled returns n values drawn from N(0, std²).
func (e *env) randScaled(n int, std float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(std * e.r.NormFloat64())
	}
	return x
}

func f32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// roundBF16 rounds v to the nearest bfloat16 (ties to even), as onednn converts activations.
func roundBF16(v float32) float32 {
	if v != v {
		return v
	}
	b := math.Float32bits(v)
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b &^ 0xffff)
}

// dense extracts the m×n view of a row-major matrix with stride ld.
func dense(x []float32, m, n, ld int) []float32 {
	out := make([]float32, 0, m*n)
	for i := 0; i < m; i++ {
		out = append(out, x[i*ld:i*ld+n]...)
	}
	return out
}

// strided returns rows×width values of data laid out stride apart, the gaps filled with
// guard values.
func strided(data []float32, rows, width, stride int) []float32 {
	if rows == 0 {
		return nil
	}
	out := make([]float32, (rows-1)*stride+width)
	guardValues(out)
	for r := 0; r < rows; r++ {
		copy(out[r*stride:r*stride+width], data[r*width:(r+1)*width])
	}
	return out
}

func label(format string, v ...any) string { return fmt.Sprintf(format, v...) }
