package cpu

// Test helpers of this package's own tests (the conformance suite, gpu/gputest, has its own).

import (
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
)

// testBackends returns one Backend per GEMM provider of this build that the tests can reach
// without importing package backends (which imports this one): purego always, plus the native
// providers added by native_*_test.go files.
func testBackends() []*Backend {
	bs := []*Backend{New(purego.New())}
	for _, p := range nativeTestProviders() {
		bs = append(bs, New(p))
	}
	return bs
}

// forEachBackend runs fn as a subtest per backend.
func forEachBackend(t *testing.T, fn func(t *testing.T, b *Backend)) {
	for _, b := range testBackends() {
		t.Run(b.Name(), func(t *testing.T) { fn(t, b) })
	}
}

// seededRand is a generator seeded by the test's name: fresh-looking values, reproducible
// failures.
func seededRand(t *testing.T) *rand.Rand {
	var h uint64 = 1469598103934665603
	for _, c := range t.Name() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(h, 42))
}

// normals returns n values drawn from N(mean, 1).
func normals(r *rand.Rand, n int, mean float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(mean + r.NormFloat64())
	}
	return x
}

// tolRowwise is the rel-L2 tolerance of element-wise and row-wise float32 kernels (measured
// ≤ 1e-7: a few float32 roundings per element).
const tolRowwise = 3e-7

// checkClose compares got with the float64 reference: every element finite, rel-L2 ≤ tol and
// max abs ≤ 10·tol·max|ref|.
func checkClose(t *testing.T, label string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", label, len(got), len(want))
	}
	var num, den, maxAbs, maxRef float64
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("%s: element %d is %v (want %v): not written or overflowed", label, i, g, w)
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
	if rel > tol || maxAbs > 10*tol*max(maxRef, 1e-30) {
		t.Errorf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g (max |ref| %.3g)", label, rel, tol, maxAbs, maxRef)
	}
}

// mustF32 allocates and fills an F32 tensor, failing the test on error.
func mustF32(t testing.TB, b gpu.Backend, data []float32, shape ...int) gpu.Tensor {
	t.Helper()
	x, err := gpu.FromHost(b, data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// mustAlloc allocates an F32 tensor, failing the test on error.
func mustAlloc(t testing.TB, b gpu.Backend, shape ...int) gpu.Tensor {
	t.Helper()
	x, err := b.Alloc(gpu.F32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// mustRead reads t back, failing the test on error.
func mustRead(t testing.TB, b gpu.Backend, x gpu.Tensor) []float32 {
	t.Helper()
	out, err := gpu.ToHost(b, x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
