package gpu

// Conformance suite: every backend compiled into the test binary (purego always, openblas or
// accelerate when built) runs every Device operation on fresh random inputs against a float64
// reference written out plainly below. Outputs are poisoned with NaN before each kernel, so an
// element the kernel forgets to write fails; strided layouts also check that the gaps between
// rows are left alone.
//
// Tolerances (relative L2 error ‖got − ref‖/‖ref‖, and max abs error ≤ 10·tol·max|ref|), set
// 3–10× above the errors measured (go test -run X -v -args -errors logs every comparison):
//   - GEMM-based kernels (Sgemm, Linear, Attention, Conv2D): tolGemm(k) = 2e-7·√k for a
//     reduction of length k (8e-7 at k ≤ 16, 1.1e-5 at k = 3072). bf16 weights are compared
//     with the float64 product of the same bf16-rounded weights, so they are held to the same
//     bound.
//   - element-wise and row-wise kernels (norms, activations, softmax, RoPE): tolElem = 3e-7.
//   - copies (UpsampleNearest2x) and exact element-wise ops (Add, Mul, Scale): exact equality.
//   - onednn rounds the activations of bf16-weight products to bf16 (see package onednn): its
//     bf16 Linear is compared with the float64 product of bf16-rounded x and w, at tolGemm too.
//     Everything else it runs on OpenBLAS and is held to the normal tolerances.

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

var logErrors = flag.Bool("errors", false, "log rel-L2 and max abs error of every comparison")

// devices returns one Device per backend compiled into this build.
func devices(t *testing.T) []*Device {
	t.Helper()
	var ds []*Device
	for _, name := range Backends() {
		d, err := ByName(name)
		if err != nil {
			t.Fatalf("ByName(%q): %v", name, err)
		}
		ds = append(ds, d)
	}
	return ds
}

// forEachDevice runs fn as a subtest per backend.
func forEachDevice(t *testing.T, fn func(t *testing.T, d *Device)) {
	for _, d := range devices(t) {
		t.Run(d.Name(), func(t *testing.T) { fn(t, d) })
	}
}

func newRand(t *testing.T) *rand.Rand {
	// A fixed seed per test name: fresh-looking values, reproducible failures.
	var h uint64 = 1469598103934665603
	for _, c := range t.Name() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(h, 42))
}

// randn returns n values drawn from N(mean, 1).
func randn(r *rand.Rand, n int, mean float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(mean + r.NormFloat64())
	}
	return x
}

// randBF16 returns n bfloat16 weights ~ N(0, std²), as bits and widened to float64.
func randBF16(r *rand.Rand, n int, std float64) ([]uint16, []float64) {
	bits := make([]uint16, n)
	wide := make([]float64, n)
	for i := range bits {
		bits[i] = uint16(math.Float32bits(float32(std*r.NormFloat64())) >> 16)
		wide[i] = float64(math.Float32frombits(uint32(bits[i]) << 16))
	}
	return bits, wide
}

func nans(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.NaN())
	}
	return x
}

func f64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// tolGemm is the rel-L2 tolerance for float32 sums of k products: float32 rounding grows like
// √k (measured: 1.2e-6 at k = 4608, 7e-7 for attention at head dim 128, 1e-7 at k ≤ 30).
func tolGemm(k int) float64 { return 2e-7 * math.Sqrt(float64(max(k, 16))) }

// tolElem is the rel-L2 tolerance of element-wise and row-wise float32 kernels (measured
// ≤ 1e-7: a few float32 roundings per element).
const tolElem = 3e-7

// check compares got with the float64 reference: every element finite (NaN poison caught),
// rel-L2 ≤ tol and max abs ≤ 10·tol·max|ref|.
func check(t *testing.T, label string, got []float32, want []float64, tol float64) {
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
	if *logErrors {
		t.Logf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g", label, rel, tol, maxAbs)
	}
	if rel > tol || maxAbs > 10*tol*max(maxRef, 1e-30) {
		t.Errorf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g (max |ref| %.3g)", label, rel, tol, maxAbs, maxRef)
	}
}

// checkExact requires bit-for-bit equality with float32(ref).
func checkExact(t *testing.T, label string, got []float32, want []float64) {
	t.Helper()
	for i, w := range want {
		if got[i] != float32(w) {
			t.Fatalf("%s: element %d = %v, want %v", label, i, got[i], float32(w))
		}
	}
}

// checkUntouched fails if any element of x outside the rows [r·stride, r·stride+width) differs
// from orig (the gaps of a strided matrix must survive a kernel).
func checkUntouched(t *testing.T, label string, x, orig []float32, rows, width, stride int) {
	t.Helper()
	for i := range x {
		r, c := i/stride, i%stride
		if r < rows && c < width {
			continue
		}
		if math.Float32bits(x[i]) != math.Float32bits(orig[i]) {
			t.Fatalf("%s: element %d (row %d col %d) outside the %d×%d view was overwritten", label, i, r, c, rows, width)
		}
	}
}

// --- Backend selection ----------------------------------------------------------------------

func TestBackendSelection(t *testing.T) {
	names := Backends()
	if !slices.Contains(names, "purego") {
		t.Fatalf("Backends() = %v, want purego among them", names)
	}
	if got := Default().Name(); got != names[0] {
		t.Errorf("Default() is %q, want the first of %v", got, names)
	}
	for _, n := range append(names, "", "default", "PUREGO") {
		d, err := ByName(n)
		if err != nil {
			t.Fatalf("ByName(%q): %v", n, err)
		}
		if n == "PUREGO" && d.Name() != "purego" {
			t.Errorf("ByName(PUREGO) = %q", d.Name())
		}
	}
	if _, err := ByName("no-such-backend"); err == nil {
		t.Error("ByName(no-such-backend) succeeded")
	}
	t.Logf("backends in this build: %v", names)
}

// --- Sgemm ----------------------------------------------------------------------------------

// refGemm returns alpha·op(A)·op(B) + beta·C as float64 for row-major strided operands.
func refGemm(transA, transB bool, m, n, k int, alpha float64, a []float32, lda int, b []float32, ldb int, beta float64, c []float32, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				var av, bv float32
				if transA {
					av = a[l*lda+i]
				} else {
					av = a[i*lda+l]
				}
				if transB {
					bv = b[j*ldb+l]
				} else {
					bv = b[l*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			v := alpha * s
			if beta != 0 {
				v += beta * float64(c[i*ldc+j])
			}
			out[i*n+j] = v
		}
	}
	return out
}

// dense extracts the m×n view of a row-major matrix with stride ld.
func dense(x []float32, m, n, ld int) []float32 {
	out := make([]float32, 0, m*n)
	for i := 0; i < m; i++ {
		out = append(out, x[i*ld:i*ld+n]...)
	}
	return out
}

func TestSgemm(t *testing.T) {
	sizes := [][3]int{{1, 1, 1}, {7, 1, 7}, {1, 129, 7}, {7, 129, 3}, {129, 7, 300}, {130, 129, 127}, {64, 96, 3072}, {3, 5, 0}}
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sz := range sizes {
			m, n, k := sz[0], sz[1], sz[2]
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					rowsA, colsA := m, k
					if ta {
						rowsA, colsA = k, m
					}
					rowsB, colsB := k, n
					if tb {
						rowsB, colsB = n, k
					}
					lda, ldb, ldc := colsA+3, colsB+5, n+2 // strides wider than the rows
					a := randn(r, rowsA*lda, 0)
					b := randn(r, rowsB*ldb, 0)
					label := fmt.Sprintf("m=%d n=%d k=%d transA=%v transB=%v", m, n, k, ta, tb)

					// beta = 0: C starts as NaN and must be fully overwritten, gaps untouched.
					c := nans(m * ldc)
					for i := 0; i < m; i++ {
						for j := n; j < ldc; j++ {
							c[i*ldc+j] = 7
						}
					}
					orig := slices.Clone(c)
					want := refGemm(ta, tb, m, n, k, 1.5, a, lda, b, ldb, 0, nil, ldc)
					d.Sgemm(ta, tb, m, n, k, 1.5, a, lda, b, ldb, 0, c, ldc)
					check(t, label+" beta=0", dense(c, m, n, ldc), want, tolGemm(k))
					checkUntouched(t, label, c, orig, m, n, ldc)

					// beta ≠ 0 accumulates into C.
					c = randn(r, m*ldc, 0)
					orig = slices.Clone(c)
					want = refGemm(ta, tb, m, n, k, -0.75, a, lda, b, ldb, 0.5, c, ldc)
					d.Sgemm(ta, tb, m, n, k, -0.75, a, lda, b, ldb, 0.5, c, ldc)
					check(t, label+" beta=0.5", dense(c, m, n, ldc), want, tolGemm(k))
					checkUntouched(t, label, c, orig, m, n, ldc)
				}
			}
		}
	})
}

// --- Linear ---------------------------------------------------------------------------------

func refLinear(x []float32, rows, in, out int, w []float64, bias []float32) []float64 {
	y := make([]float64, rows*out)
	for r := 0; r < rows; r++ {
		for o := 0; o < out; o++ {
			var s float64
			for i := 0; i < in; i++ {
				s += float64(x[r*in+i]) * w[o*in+i]
			}
			if bias != nil {
				s += float64(bias[o])
			}
			y[r*out+o] = s
		}
	}
	return y
}

func TestLinear(t *testing.T) {
	// The last two span several bf16 conversion tiles (bf16TileRows: 2688 rows at in=3072,
	// 512 at in=16384) with a ragged end.
	shapes := [][3]int{{1, 1, 1}, {1, 7, 7}, {7, 129, 300}, {129, 7, 513}, {5, 3072, 129}, {33, 96, 256}, {2, 3072, 2700}, {3, 16384, 600}}
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range shapes {
			rows, in, out := sh[0], sh[1], sh[2]
			x := randn(r, rows*in, 0)
			bias := randn(r, out, 0)
			std := 1 / math.Sqrt(float64(in))
			bits, wide := randBF16(r, out*in, std)
			wf32 := randn(r, out*in, 0)
			for i := range wf32 {
				wf32[i] *= float32(std)
			}
			for _, withBias := range []bool{false, true} {
				b := bias
				if !withBias {
					b = nil
				}
				label := fmt.Sprintf("rows=%d in=%d out=%d bias=%v", rows, in, out, withBias)

				y := nans(rows * out)
				d.Linear(y, x, rows, Weight{Out: out, In: in, F32: wf32}, b)
				check(t, label+" f32", y, refLinear(x, rows, in, out, f64(wf32), b), tolGemm(in))

				y = nans(rows * out)
				d.Linear(y, x, rows, Weight{Out: out, In: in, BF16: bits}, b)
				check(t, label+" bf16", y, refLinear(bf16Activations(d, x), rows, in, out, wide, b), tolGemm(in))
			}
		}
	})
}

// bf16Activations returns x as the device's bf16-weight products see it: rounded to bfloat16
// on onednn, unchanged elsewhere.
func bf16Activations(d *Device, x []float32) []float32 {
	if d.Name() != "onednn" {
		return x
	}
	r := make([]float32, len(x))
	for i, v := range x {
		r[i] = math.Float32frombits(uint32(roundBF16(v)) << 16)
	}
	return r
}

// --- Norms ----------------------------------------------------------------------------------

func TestLayerNorm(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][2]int{{1, 1}, {1, 7}, {7, 129}, {129, 64}, {3, 3072}} {
			rows, dim := sh[0], sh[1]
			x := randn(r, rows*dim, 3) // an offset mean checks the centring
			weight, bias := randn(r, dim, 1), randn(r, dim, 0)
			for _, affine := range []bool{false, true} {
				w, b := weight, bias
				if !affine {
					w, b = nil, nil
				}
				const eps = 1e-6
				want := make([]float64, rows*dim)
				for i := 0; i < rows; i++ {
					xr := f64(x[i*dim : (i+1)*dim])
					var mean, vs float64
					for _, v := range xr {
						mean += v
					}
					mean /= float64(dim)
					for _, v := range xr {
						vs += (v - mean) * (v - mean)
					}
					inv := 1 / math.Sqrt(vs/float64(dim)+eps)
					for j, v := range xr {
						o := (v - mean) * inv
						if affine {
							o = o*float64(w[j]) + float64(b[j])
						}
						want[i*dim+j] = o
					}
				}
				y := nans(rows * dim)
				d.LayerNorm(y, x, rows, dim, eps, w, b)
				label := fmt.Sprintf("rows=%d dim=%d affine=%v", rows, dim, affine)
				if dim == 1 {
					// Zero variance: (x - mean) is exactly 0, only the bias remains.
					checkExact(t, label, y, want)
					continue
				}
				check(t, label, y, want, tolElem)
				// In place.
				xc := slices.Clone(x)
				d.LayerNorm(xc, xc, rows, dim, eps, w, b)
				check(t, label+" in place", xc, want, tolElem)
			}
		}
	})
}

func TestRMSNorm(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][2]int{{1, 1}, {1, 7}, {7, 128}, {129, 129}, {2, 3072}} {
			rows, dim := sh[0], sh[1]
			x := randn(r, rows*dim, 0.5)
			weight := randn(r, dim, 1)
			for _, withW := range []bool{false, true} {
				w := weight
				if !withW {
					w = nil
				}
				const eps = 1e-6
				want := make([]float64, rows*dim)
				for i := 0; i < rows; i++ {
					xr := f64(x[i*dim : (i+1)*dim])
					var ss float64
					for _, v := range xr {
						ss += v * v
					}
					inv := 1 / math.Sqrt(ss/float64(dim)+eps)
					for j, v := range xr {
						o := v * inv
						if withW {
							o *= float64(w[j])
						}
						want[i*dim+j] = o
					}
				}
				y := nans(rows * dim)
				d.RMSNorm(y, x, rows, dim, eps, w)
				check(t, fmt.Sprintf("rows=%d dim=%d weight=%v", rows, dim, withW), y, want, tolElem)
			}
		}
	})
}

func TestGroupNorm(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][3]int{{2, 1, 1}, {8, 7, 2}, {32, 129, 8}, {64, 4096, 32}, {7, 13, 7}} {
			channels, hw, groups := sh[0], sh[1], sh[2]
			x := randn(r, channels*hw, -2)
			gamma, beta := randn(r, channels, 1), randn(r, channels, 0)
			for _, affine := range []bool{false, true} {
				g, b := gamma, beta
				if !affine {
					g, b = nil, nil
				}
				const eps = 1e-6
				cpg := channels / groups
				want := make([]float64, channels*hw)
				for gi := 0; gi < groups; gi++ {
					seg := f64(x[gi*cpg*hw : (gi+1)*cpg*hw])
					var mean, vs float64
					for _, v := range seg {
						mean += v
					}
					mean /= float64(len(seg))
					for _, v := range seg {
						vs += (v - mean) * (v - mean)
					}
					inv := 1 / math.Sqrt(vs/float64(len(seg))+eps)
					for i, v := range seg {
						c := gi*cpg + i/hw
						o := (v - mean) * inv
						if affine {
							o = o*float64(g[c]) + float64(b[c])
						}
						want[gi*cpg*hw+i] = o
					}
				}
				y := nans(channels * hw)
				d.GroupNorm(y, x, channels, hw, groups, eps, g, b)
				label := fmt.Sprintf("C=%d hw=%d groups=%d affine=%v", channels, hw, groups, affine)
				if cpg*hw == 1 {
					checkExact(t, label, y, want)
					continue
				}
				check(t, label, y, want, tolElem)
			}
		}
	})
}

// --- Activations and softmax ----------------------------------------------------------------

func refSiLU(v float64) float64 { return v / (1 + math.Exp(-v)) }

func TestSiLUAndSwiGLU(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, n := range []int{1, 7, 129, 3072, 100003} {
			x := randn(r, n, 0)
			for i := range x {
				x[i] *= 4 // reach the tails of the sigmoid
			}
			if n > 7 {
				x[0], x[1], x[2], x[3] = 90, -90, 0, -1e-30
			}
			want := make([]float64, n)
			for i, v := range x {
				want[i] = refSiLU(float64(v))
			}
			y := nans(n)
			d.SiLU(y, x)
			check(t, fmt.Sprintf("SiLU n=%d", n), y, want, tolElem)
			d.SiLU(x, x)
			check(t, fmt.Sprintf("SiLU n=%d in place", n), x, want, tolElem)
		}
		for _, sh := range [][2]int{{1, 1}, {7, 129}, {3, 3072}, {129, 7}} {
			rows, hidden := sh[0], sh[1]
			x := randn(r, rows*2*hidden, 0)
			want := make([]float64, rows*hidden)
			for i := 0; i < rows; i++ {
				for j := 0; j < hidden; j++ {
					want[i*hidden+j] = refSiLU(float64(x[i*2*hidden+j])) * float64(x[i*2*hidden+hidden+j])
				}
			}
			y := nans(rows * hidden)
			d.SwiGLU(y, x, rows, hidden)
			check(t, fmt.Sprintf("SwiGLU rows=%d hidden=%d", rows, hidden), y, want, tolElem)
		}
	})
}

func refSoftmax(row []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = max(m, v)
	}
	out := make([]float64, len(row))
	var s float64
	for i, v := range row {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func TestSoftmaxRows(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][2]int{{1, 1}, {7, 7}, {129, 129}, {2, 3072}, {3, 300}} {
			rows, cols := sh[0], sh[1]
			x := randn(r, rows*cols, 0)
			for i := range x {
				x[i] *= 8
			}
			x[0] += 80 // large logits: the max must be subtracted
			if cols > 2 {
				x[1] = -math.MaxFloat32 // a masked score (finfo.min) gets weight 0
			}
			want := make([]float64, 0, rows*cols)
			for i := 0; i < rows; i++ {
				want = append(want, refSoftmax(f64(x[i*cols:(i+1)*cols]))...)
			}
			d.SoftmaxRows(x, rows, cols)
			check(t, fmt.Sprintf("rows=%d cols=%d", rows, cols), x, want, tolElem)
			if cols > 2 && x[1] != 0 {
				t.Errorf("masked score got weight %v", x[1])
			}
		}
	})
}

// --- Attention ------------------------------------------------------------------------------

// refAttention computes attention in float64 straight from the definition; masked keys are left
// out, which is what adding finfo(float32).min does whenever a row keeps one visible key.
func refAttention(q, k, v []float32, p AttnParams) []float64 {
	p = p.withDefaults()
	out := make([]float64, p.SeqQ*p.Heads*p.HeadDim)
	group := p.Heads / p.KVHeads
	for h := 0; h < p.Heads; h++ {
		kvh := h / group
		for i := 0; i < p.SeqQ; i++ {
			scores := make([]float64, 0, p.SeqK)
			var keys []int
			for j := 0; j < p.SeqK; j++ {
				if (p.Causal && j > i) || (p.KeyValid > 0 && j >= p.KeyValid) {
					continue
				}
				var s float64
				for e := 0; e < p.HeadDim; e++ {
					s += float64(q[i*p.QStride+h*p.HeadDim+e]) * float64(k[j*p.KStride+kvh*p.HeadDim+e])
				}
				scores = append(scores, s*float64(p.Scale))
				keys = append(keys, j)
			}
			w := refSoftmax(scores)
			for e := 0; e < p.HeadDim; e++ {
				var s float64
				for n, j := range keys {
					s += w[n] * float64(v[j*p.VStride+kvh*p.HeadDim+e])
				}
				out[(i*p.Heads+h)*p.HeadDim+e] = s
			}
		}
	}
	return out
}

func TestAttention(t *testing.T) {
	type tc struct {
		name string
		p    AttnParams
		pad  int // extra elements per row of q, k, v and out (0: packed)
		qkv  bool
	}
	cases := []tc{
		{"single", AttnParams{SeqQ: 1, SeqK: 1, Heads: 1, HeadDim: 8}, 0, false},
		{"MHA-127", AttnParams{SeqQ: 127, SeqK: 127, Heads: 2, HeadDim: 16}, 0, false},
		{"MHA-129", AttnParams{SeqQ: 129, SeqK: 129, Heads: 3, HeadDim: 8}, 0, false},
		{"MHA-300-d128", AttnParams{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 128}, 0, false},
		{"GQA-4:2", AttnParams{SeqQ: 129, SeqK: 129, Heads: 4, KVHeads: 2, HeadDim: 16}, 0, false},
		{"GQA-8:2-causal", AttnParams{SeqQ: 300, SeqK: 300, Heads: 8, KVHeads: 2, HeadDim: 8, Causal: true}, 0, false},
		{"causal-1", AttnParams{SeqQ: 1, SeqK: 1, Heads: 2, HeadDim: 8, Causal: true}, 0, false},
		{"causal-127", AttnParams{SeqQ: 127, SeqK: 127, Heads: 2, HeadDim: 8, Causal: true}, 0, false},
		{"causal-129", AttnParams{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 32, Causal: true}, 0, false},
		{"keyvalid-77", AttnParams{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 8, KeyValid: 77}, 0, false},
		{"keyvalid-1", AttnParams{SeqQ: 7, SeqK: 129, Heads: 1, HeadDim: 8, KeyValid: 1}, 0, false},
		{"keyvalid>seqk", AttnParams{SeqQ: 7, SeqK: 9, Heads: 1, HeadDim: 8, KeyValid: 100}, 0, false},
		{"causal+keyvalid-130", AttnParams{SeqQ: 300, SeqK: 300, Heads: 4, KVHeads: 2, HeadDim: 8, Causal: true, KeyValid: 130}, 0, false},
		{"causal+keyvalid-12", AttnParams{SeqQ: 129, SeqK: 129, Heads: 2, HeadDim: 8, Causal: true, KeyValid: 12}, 0, false},
		{"strided", AttnParams{SeqQ: 129, SeqK: 129, Heads: 2, KVHeads: 1, HeadDim: 8, Scale: 0.3}, 5, false},
		{"packed-qkv", AttnParams{SeqQ: 300, SeqK: 300, Heads: 3, HeadDim: 16}, 0, true},
		{"seqq<seqk", AttnParams{SeqQ: 7, SeqK: 300, Heads: 2, HeadDim: 8}, 3, false},
		{"seqq>seqk", AttnParams{SeqQ: 300, SeqK: 129, Heads: 2, HeadDim: 8}, 0, false},
		{"seqq=1", AttnParams{SeqQ: 1, SeqK: 129, Heads: 2, KVHeads: 2, HeadDim: 64}, 0, false},
		{"seqk=1", AttnParams{SeqQ: 129, SeqK: 1, Heads: 2, HeadDim: 8}, 0, false},
	}
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, c := range cases {
			p := c.p
			kvh := p.KVHeads
			if kvh == 0 {
				kvh = p.Heads
			}
			qw, kw := p.Heads*p.HeadDim, kvh*p.HeadDim
			var q, k, v, out []float32
			if c.qkv {
				// One [seq, q|k|v] buffer as a fused projection produces it.
				stride := qw + 2*kw
				buf := randn(r, p.SeqQ*stride, 0)
				q, k, v = buf, buf[qw:], buf[qw+kw:]
				p.QStride, p.KStride, p.VStride = stride, stride, stride
			} else {
				q, k, v = randn(r, p.SeqQ*(qw+c.pad), 0), randn(r, p.SeqK*(kw+c.pad), 0), randn(r, p.SeqK*(kw+c.pad), 0)
				if c.pad > 0 {
					p.QStride, p.KStride, p.VStride, p.OutStride = qw+c.pad, kw+c.pad, kw+c.pad, qw+c.pad
				}
			}
			for i := range q {
				q[i] *= 1.5 // peakier softmax
			}
			outStride := p.OutStride
			if outStride == 0 {
				outStride = qw
			}
			out = nans(p.SeqQ * outStride)
			for i := range out {
				if i%outStride >= qw {
					out[i] = 3
				}
			}
			orig := slices.Clone(out)
			want := refAttention(q, k, v, p)
			d.Attention(out, q, k, v, p)
			check(t, c.name, dense(out, p.SeqQ, qw, outStride), want, tolGemm(max(p.SeqK, p.HeadDim)))
			checkUntouched(t, c.name, out, orig, p.SeqQ, qw, outStride)
		}
	})
}

// --- RoPE -----------------------------------------------------------------------------------

func TestRoPE(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][3]int{{1, 1, 2}, {7, 3, 8}, {129, 2, 128}, {5, 24, 128}} {
			seq, heads, headDim := sh[0], sh[1], sh[2]
			for _, interleaved := range []bool{false, true} {
				stride := heads*headDim + 3
				x := randn(r, seq*stride, 0)
				cos, sin := make([]float32, seq*headDim), make([]float32, seq*headDim)
				for i := range cos {
					a := r.Float64() * 2 * math.Pi
					cos[i], sin[i] = float32(math.Cos(a)), float32(math.Sin(a))
				}
				want := make([]float64, 0, seq*heads*headDim)
				for s := 0; s < seq; s++ {
					c, sn := f64(cos[s*headDim:(s+1)*headDim]), f64(sin[s*headDim:(s+1)*headDim])
					for h := 0; h < heads; h++ {
						v := f64(x[s*stride+h*headDim : s*stride+(h+1)*headDim])
						o := make([]float64, headDim)
						for i := range o {
							var rot float64 // the partner element, sign included
							switch {
							case interleaved && i%2 == 0:
								rot = -v[i+1]
							case interleaved:
								rot = v[i-1]
							case i < headDim/2:
								rot = -v[i+headDim/2]
							default:
								rot = v[i-headDim/2]
							}
							o[i] = v[i]*c[i] + rot*sn[i]
						}
						want = append(want, o...)
					}
				}
				orig := slices.Clone(x)
				d.RoPE(x, seq, heads, headDim, stride, cos, sin, interleaved)
				label := fmt.Sprintf("seq=%d heads=%d dim=%d interleaved=%v", seq, heads, headDim, interleaved)
				check(t, label, dense(x, seq, heads*headDim, stride), want, tolElem)
				checkUntouched(t, label, x, orig, seq, heads*headDim, stride)
			}
		}
	})
}

// --- Conv2D ---------------------------------------------------------------------------------

func refConv(in []float32, w []float64, bias []float32, outC int, p ConvParams) []float64 {
	oh, ow := p.OutSize()
	s := max(p.Stride, 1)
	out := make([]float64, outC*oh*ow)
	for o := 0; o < outC; o++ {
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				var acc float64
				for c := 0; c < p.InC; c++ {
					for ky := 0; ky < p.KH; ky++ {
						for kx := 0; kx < p.KW; kx++ {
							iy, ix := y*s+ky-p.PadTop, x*s+kx-p.PadLeft
							if iy < 0 || iy >= p.InH || ix < 0 || ix >= p.InW {
								continue
							}
							acc += float64(in[(c*p.InH+iy)*p.InW+ix]) * w[((o*p.InC+c)*p.KH+ky)*p.KW+kx]
						}
					}
				}
				if bias != nil {
					acc += float64(bias[o])
				}
				out[(o*oh+y)*ow+x] = acc
			}
		}
	}
	return out
}

func TestConv2D(t *testing.T) {
	type tc struct {
		name string
		outC int
		p    ConvParams
	}
	cases := []tc{
		{"1x1", 5, ConvParams{InC: 7, InH: 9, InW: 11, KH: 1, KW: 1, Stride: 1}},
		{"1x1-1px", 3, ConvParams{InC: 1, InH: 1, InW: 1, KH: 1, KW: 1}},
		{"1x1-stride2", 4, ConvParams{InC: 3, InH: 7, InW: 9, KH: 1, KW: 1, Stride: 2}},
		{"3x3-pad1", 7, ConvParams{InC: 3, InH: 13, InW: 9, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{"3x3-pad1-1px", 2, ConvParams{InC: 4, InH: 1, InW: 1, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{"3x3-pad1-1xN", 3, ConvParams{InC: 2, InH: 1, InW: 7, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{"3x3-s2-pad0011", 6, ConvParams{InC: 5, InH: 16, InW: 12, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{"3x3-s2-pad0011-odd", 3, ConvParams{InC: 4, InH: 15, InW: 13, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{"3x3-s2-pad0011-2px", 3, ConvParams{InC: 2, InH: 2, InW: 2, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
		{"3x1-pad-asym", 4, ConvParams{InC: 3, InH: 8, InW: 5, KH: 3, KW: 1, Stride: 1, PadTop: 2, PadLeft: 1}},
		{"1x3-stride3", 2, ConvParams{InC: 2, InH: 7, InW: 10, KH: 1, KW: 3, Stride: 3}},
		{"3x3-pad1-tiles", 9, ConvParams{InC: 16, InH: 64, InW: 80, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
		{"3x3-pad1-wide", 4, ConvParams{InC: 512, InH: 21, InW: 33, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
	}
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, c := range cases {
			p := c.p
			kdim := p.InC * p.KH * p.KW
			in := randn(r, p.InC*p.InH*p.InW, 0)
			bias := randn(r, c.outC, 0)
			bits, wide := randBF16(r, c.outC*kdim, 1/math.Sqrt(float64(kdim)))
			wf32 := randn(r, c.outC*kdim, 0)
			oh, ow := p.OutSize()
			for _, withBias := range []bool{false, true} {
				b := bias
				if !withBias {
					b = nil
				}
				label := fmt.Sprintf("%s bias=%v", c.name, withBias)
				out := nans(c.outC * oh * ow)
				d.Conv2D(out, in, Weight{Out: c.outC, In: kdim, F32: wf32}, b, p)
				check(t, label+" f32", out, refConv(in, f64(wf32), b, c.outC, p), tolGemm(kdim))

				out = nans(c.outC * oh * ow)
				d.Conv2D(out, in, Weight{Out: c.outC, In: kdim, BF16: bits}, b, p)
				check(t, label+" bf16", out, refConv(in, wide, b, c.outC, p), tolGemm(kdim))
			}
		}
	})
}

// --- Upsample and element-wise --------------------------------------------------------------

func TestUpsampleNearest2x(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, sh := range [][3]int{{1, 1, 1}, {3, 7, 5}, {5, 1, 9}, {2, 64, 33}} {
			c, h, w := sh[0], sh[1], sh[2]
			x := randn(r, c*h*w, 0)
			want := make([]float64, c*4*h*w)
			for ch := 0; ch < c; ch++ {
				for y := 0; y < 2*h; y++ {
					for xx := 0; xx < 2*w; xx++ {
						want[(ch*2*h+y)*2*w+xx] = float64(x[(ch*h+y/2)*w+xx/2])
					}
				}
			}
			y := nans(c * 4 * h * w)
			d.UpsampleNearest2x(y, x, c, h, w)
			checkExact(t, fmt.Sprintf("C=%d h=%d w=%d", c, h, w), y, want)
		}
	})
}

func TestElementwise(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		for _, n := range []int{1, 7, 129, 3072, 100003} {
			a, b := randn(r, n, 0), randn(r, n, 0)
			want := func(f func(x, y float32) float32) []float64 {
				w := make([]float64, n)
				for i := range w {
					w[i] = float64(f(a[i], b[i]))
				}
				return w
			}
			y := nans(n)
			d.Add(y, a, b)
			checkExact(t, fmt.Sprintf("Add n=%d", n), y, want(func(x, y float32) float32 { return x + y }))
			y = nans(n)
			d.Mul(y, a, b)
			checkExact(t, fmt.Sprintf("Mul n=%d", n), y, want(func(x, y float32) float32 { return x * y }))
			y = nans(n)
			d.Scale(y, a, -0.37)
			checkExact(t, fmt.Sprintf("Scale n=%d", n), y, want(func(x, _ float32) float32 { return -0.37 * x }))

			y = slices.Clone(b)
			wantAxpy := make([]float64, n)
			for i := range wantAxpy {
				wantAxpy[i] = float64(b[i]) + 0.75*float64(a[i])
			}
			d.AddScaled(y, a, 0.75)
			check(t, fmt.Sprintf("AddScaled n=%d", n), y, wantAxpy, 1e-7)

			// In place (y aliases a).
			ac := slices.Clone(a)
			d.Add(ac, ac, b)
			checkExact(t, fmt.Sprintf("Add in place n=%d", n), ac, want(func(x, y float32) float32 { return x + y }))
		}
	})
}

// --- Concurrency ----------------------------------------------------------------------------

// TestConcurrentUse runs pooled-buffer kernels from several goroutines on one Device: results
// must not depend on what runs beside them (run with -race to check the pools).
func TestConcurrentUse(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		const rows, in, out = 9, 64, 300
		x := randn(r, rows*in, 0)
		bits, wide := randBF16(r, out*in, 0.1)
		wantLin := refLinear(bf16Activations(d, x), rows, in, out, wide, nil)
		ap := AttnParams{SeqQ: 130, SeqK: 130, Heads: 2, HeadDim: 8, Causal: true}
		q, k, v := randn(r, 130*16, 0), randn(r, 130*16, 0), randn(r, 130*16, 0)
		wantAttn := refAttention(q, k, v, ap)
		cp := ConvParams{InC: 3, InH: 9, InW: 9, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}
		img := randn(r, 3*81, 0)
		cbits, cwide := randBF16(r, 4*27, 0.2)
		wantConv := refConv(img, cwide, nil, 4, cp)

		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := 0; g < 6; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for it := 0; it < 5; it++ {
					y := nans(rows * out)
					d.Linear(y, x, rows, Weight{Out: out, In: in, BF16: bits}, nil)
					a := nans(130 * 16)
					d.Attention(a, q, k, v, ap)
					c := nans(4 * 25)
					d.Conv2D(c, img, Weight{Out: 4, In: 27, BF16: cbits}, nil, cp)
					for _, pair := range []struct {
						got  []float32
						want []float64
					}{{y, wantLin}, {a, wantAttn}, {c, wantConv}} {
						for i, w := range pair.want {
							if math.Abs(float64(pair.got[i])-w) > 1e-4*(1+math.Abs(w)) {
								errs <- fmt.Sprintf("goroutine %d: element %d = %v, want %v", g, i, pair.got[i], w)
								return
							}
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}
