//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
	"kleinbild/gpu/internal/refmath"
)

// openFast returns a backend on the best device in the fast precision.
func openFast(t *testing.T) *Backend {
	t.Helper()
	b := openTest(t).(*Backend)
	note, err := b.SetPrecision(gpu.PrecisionFast)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("precision: %s", note)
	return b
}

// TestConformanceFast runs the conformance suite's Linear tests in the fast precision: on a
// device without matrix units (lavapipe) the twin kernel, on one with them the matrix-unit
// kernel. Each bf16 product is compared with the float64 product of the float16-rounded
// operands (tight) and with the float32 reference (gputest.TolF16Linear). The suite's
// shorter shape list unless KLEINBILD_VULKAN_ALL=1 (make test-vulkan-all): the longest
// products cost lavapipe about a minute more.
func TestConformanceFast(t *testing.T) {
	b := openFast(t)
	o := gputest.Options{Short: testing.Short() || os.Getenv("KLEINBILD_VULKAN_ALL") != "1", LogErrors: *logErrors, Quant: QuantTypes(), F16Linear: true, F16Conv: true, F16Attention: true}
	for name, fn := range map[string]func(*testing.T, gpu.Backend, gputest.Options){
		"Attention": gputest.TestAttention, "Conv2D": gputest.TestConv2D, "Linear": gputest.TestLinear, "LinearAdd": gputest.TestLinearAdd, "LinearQuant": gputest.TestLinearQuant,
		"ConcurrentUse": gputest.TestConcurrentUse,
	} {
		t.Run(name, func(t *testing.T) { fn(t, b, o) })
	}
}

// fastLinear runs y = x·wᵀ on bf16 weights in b's current precision and reads y.
func fastLinear(t *testing.T, b *Backend, x []float32, bits []uint16, rows, in, out int) []float32 {
	t.Helper()
	xt, err := gpu.FromHost(b, x, rows, in)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(xt)
	w, err := b.WeightBF16(bits, out, in)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(w)
	y, err := b.Alloc(gpu.F32, rows, out)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(y)
	b.Linear(y, xt, w, gpu.Tensor{}, rows)
	got := make([]float32, rows*out)
	if err := b.Read(got, y); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFastScalesRows: rows whose values overflow float16 (1e6, as FLUX's activations do) or
// underflow it (1e-9) come out of the fast Linear within TolF16Linear of the exact one: the
// per-row scale keeps them in range (unscaled, the first is Inf and the second 0).
func TestFastScalesRows(t *testing.T) {
	b := openFast(t)
	const rows, in, out = 3, 200, 70
	r := rand.New(rand.NewPCG(7, 1))
	x := make([]float32, rows*in)
	for i := range x {
		x[i] = float32(r.NormFloat64()) * []float32{1e6, 1e-9, 1}[i/in]
	}
	bits, wide := refmath.RandBF16(r, out*in, 0.1)
	got := fastLinear(t, b, x, bits, rows, in, out)
	for row := range rows {
		var num, den float64
		for o := range out {
			var s float64
			for i := range in {
				s += float64(x[row*in+i]) * wide[o*in+i]
			}
			d := float64(got[row*out+o]) - s
			num, den = num+d*d, den+s*s
		}
		if rel := math.Sqrt(num / den); !(rel <= gputest.TolF16Linear) {
			t.Errorf("row %d (scale %g): rel-L2 %.3g against float64, want ≤ %g", row, x[row*in], rel, gputest.TolF16Linear)
		}
	}
}

// TestFastNonFinite: a NaN or ±Inf in a row of x makes the fast Linear's outputs of that row
// non-finite exactly where the exact one's are (NaN where it has NaN, the same infinities),
// and leaves the other rows finite.
func TestFastNonFinite(t *testing.T) {
	b := openFast(t)
	const rows, in, out = 4, 40, 9
	r := rand.New(rand.NewPCG(8, 1))
	x := make([]float32, rows*in)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	x[1*in+5] = float32(math.NaN())
	x[2*in+7] = float32(math.Inf(1))
	x[3*in+1], x[3*in+2] = float32(math.Inf(1)), float32(math.Inf(-1))
	bits, _ := refmath.RandBF16(r, out*in, 0.1)
	fast := fastLinear(t, b, x, bits, rows, in, out)
	if _, err := b.SetPrecision(gpu.PrecisionExact); err != nil {
		t.Fatal(err)
	}
	exact := fastLinear(t, b, x, bits, rows, in, out)
	for i := range fast {
		f, e := float64(fast[i]), float64(exact[i])
		switch {
		case math.IsNaN(e) != math.IsNaN(f), math.IsInf(e, 1) != math.IsInf(f, 1), math.IsInf(e, -1) != math.IsInf(f, -1):
			t.Errorf("row %d output %d: fast %v, exact %v", i/out, i%out, f, e)
		case i/out == 0 && (math.IsNaN(f) || math.IsInf(f, 0)):
			t.Errorf("row 0 output %d: %v in a row without non-finite inputs", i%out, f)
		}
	}
}

// TestSelfCheckNoUnits: on a device without matrix units (lavapipe) SelfCheck compares
// nothing and says so; on one with them every check passes.
func TestSelfCheckNoUnits(t *testing.T) {
	b := openTest(t).(*Backend)
	checks, note, err := b.SelfCheck()
	if err != nil {
		t.Fatal(err)
	}
	t.Log(note)
	if b.units == nil {
		if len(checks) != 0 || !strings.Contains(note, "no matrix units") || !strings.Contains(note, "nothing to compare") {
			t.Errorf("without matrix units: %d checks, note %q", len(checks), note)
		}
		return
	}
	for _, c := range checks {
		t.Logf("%s vs %s %s: rel-L2 %.3g, max diff %.3g (tol %.1g)", c.Kernel, c.Twin, c.Shape, c.RelL2, c.MaxDiff, c.Tol)
		if !c.OK() {
			t.Errorf("%s vs %s %s: rel-L2 %.3g exceeds %.1g", c.Kernel, c.Twin, c.Shape, c.RelL2, c.Tol)
		}
	}
}

// TestCheckKernel: the self-check's comparison run on the twin against itself finds no
// difference, and leaves the backend's precision as it was (exact: the next Linear is the
// float32 one).
func TestCheckKernel(t *testing.T) {
	b := openTest(t).(*Backend)
	c, err := b.checkKernel("linearf16", "linearf16", 70, 300, 90)
	if err != nil {
		t.Fatal(err)
	}
	if c.RelL2 != 0 || c.MaxDiff != 0 || !c.OK() {
		t.Errorf("twin against itself: %+v", c)
	}
	if b.fast || b.fastForce != "" {
		t.Errorf("after the check: fast %v, forced kernel %q", b.fast, b.fastForce)
	}
}
