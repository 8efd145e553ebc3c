//go:build cgo

package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// TestGemmForms runs every generated Linear and Conv2D variant on shapes the conformance
// suite does not reach: aligned operands (vec4 loads of x and f32 weights, vec4<u32> loads
// of bf16 weights), products with whole interior tiles (the unchecked form) next to ragged
// edges, K not a multiple of the vector, products of a few rows (the small-M tile), output
// and input in one buffer, and dispatches split by a small FLOP bound. Each result is
// compared with a float64 reference (rel-L2 ≤ 2e-7·√k, max abs ≤ 10× that of max |ref|,
// as the conformance suite), and the test checks that those compiled forms were reached.
func TestGemmForms(t *testing.T) {
	b := open(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, fam := range []string{FamilyLinear, FamilyConv} {
		names := b.Variants(fam)
		for _, v := range names {
			if _, ok := parseGemm(v); !ok {
				continue
			}
			t.Run(fam+"/"+v, func(t *testing.T) {
				if err := b.SetVariant(fam, v); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = b.SetVariant(fam, names[0]) })
				for _, budget := range []float64{0, 1} {
					b.SetDispatchFLOPs(budget)
					if fam == FamilyLinear {
						shapes := [][3]int{{130, 64, 136}, {256, 48, 128}, {3, 40, 300}, {70, 36, 72}, {9, 37, 70}}
						if budget > 0 {
							shapes = shapes[:1]
						}
						for _, s := range shapes {
							for _, bf16 := range []bool{false, true} {
								linearCase(t, b, r, s[0], s[1], s[2], bf16, budget)
							}
						}
						linearShared(t, b, r)
					} else {
						for _, c := range []struct {
							outC int
							p    gpu.ConvParams
						}{
							{64, gpu.ConvParams{InC: 16, InH: 20, InW: 24, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
							{130, gpu.ConvParams{InC: 16, InH: 9, InW: 14, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
							{128, gpu.ConvParams{InC: 32, InH: 16, InW: 16, KH: 1, KW: 1, Stride: 1}},
							{3, gpu.ConvParams{InC: 16, InH: 12, InW: 11, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
						} {
							if budget > 0 && c.outC != 130 {
								continue
							}
							for _, bf16 := range []bool{false, true} {
								convCase(t, b, r, c.outC, c.p, bf16, budget)
							}
						}
					}
				}
				b.SetDispatchFLOPs(0)
				want := []string{"/interior", "af324/bf324", "af324/bbf168", "af321/bf321", "af324/bbf161"}
				if fam == FamilyConv {
					want = []string{"/interior", "af324/bgather1", "abf168/bgather1"}
				}
				if strings.Contains(v, "-v1-") {
					want = []string{"/interior"}
				}
				if fam == FamilyLinear {
					want = append(want, "/rw1") // x shares y's buffer: x alone read_write
				}
				for _, w := range want {
					if !hasPipe(b, fam+"/"+v+"/", w) {
						t.Errorf("no %s form of %s was compiled", w, v)
					}
				}
				for k := range b.pipes {
					// the weight (input 1) and the bias (input 2) never alias an output
					if i := strings.Index(k, "/rw"); i >= 0 && strings.HasPrefix(k, fam+"/") && k[i+3:] != "1" {
						t.Errorf("pipeline %s binds the weight or bias read_write", k)
					}
				}
			})
		}
	}
}

// hasPipe reports whether a compiled pipeline's name starts with prefix and contains s.
func hasPipe(b *Backend, prefix, s string) bool {
	for k := range b.pipes {
		if strings.HasPrefix(k, prefix) && strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// weightT uploads out×in weights, as bf16 (returning the widened values) or f32.
func weightT(t *testing.T, b *Backend, r *rand.Rand, out, in int, bf16 bool) (gpu.Tensor, []float64) {
	t.Helper()
	std := 1 / math.Sqrt(float64(in))
	var w gpu.Tensor
	var wide []float64
	var err error
	if bf16 {
		var bits []uint16
		bits, wide = refmath.RandBF16(r, out*in, std)
		w, err = b.WeightBF16(bits, out, in)
	} else {
		f := randF32(r, out*in, std)
		wide = refmath.Widen(f)
		w, err = b.WeightF32(f, out, in)
	}
	if err != nil {
		t.Fatal(err)
	}
	return w, wide
}

// checkClose compares got with want as the conformance suite does for a sum of k products.
func checkClose(t *testing.T, label string, got []float32, want []float64, k int) {
	t.Helper()
	tol := 2e-7 * math.Sqrt(float64(max(k, 16)))
	var num, den, maxAbs, maxRef float64
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("%s: element %d is %v, want %v", label, i, g, w)
		}
		num += (g - w) * (g - w)
		den += w * w
		maxAbs = max(maxAbs, math.Abs(g-w))
		maxRef = max(maxRef, math.Abs(w))
	}
	if rel := math.Sqrt(num / den); !(rel <= tol) || maxAbs > 10*tol*maxRef {
		t.Errorf("%s: rel-L2 %.3g (tol %.3g), max abs %.3g (max |ref| %.3g)", label, rel, tol, maxAbs, maxRef)
	}
}

func linearCase(t *testing.T, b *Backend, r *rand.Rand, rows, in, out int, bf16 bool, budget float64) {
	t.Helper()
	label := fmt.Sprintf("Linear %dx%d→%d bf16=%v budget=%g", rows, in, out, bf16, budget)
	xh := randF32(r, rows*in, 1)
	bh := randF32(r, out, 1)
	w, wide := weightT(t, b, r, out, in, bf16)
	x, _ := gpu.FromHost(b, xh, rows, in)
	bias, _ := gpu.FromHost(b, bh)
	y, _ := gpu.FromHost(b, refmath.NaNs(rows*out), rows, out)
	b.Linear(y, x, w, bias, rows)
	got, err := gpu.ToHost(b, y)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	want := make([]float64, rows*out)
	for i := range rows {
		for o := range out {
			s := float64(bh[o])
			for k := range in {
				s += float64(xh[i*in+k]) * wide[o*in+k]
			}
			want[i*out+o] = s
		}
	}
	checkClose(t, label, got, want, in)
	for _, x := range []gpu.Tensor{w, x, bias, y} {
		b.Free(x)
	}
}

// linearShared runs Linear with x and y views of one buffer (x bound read_write, the
// weight read-only).
func linearShared(t *testing.T, b *Backend, r *rand.Rand) {
	t.Helper()
	const rows, in, out = 130, 64, 136
	xh := randF32(r, rows*in, 1)
	w, wide := weightT(t, b, r, out, in, false)
	buf, _ := gpu.FromHost(b, append(xh, refmath.NaNs(rows*out)...))
	b.Linear(buf.From(rows*in).Reshape(rows, out), buf.Slice(0, rows*in).Reshape(rows, in), w, gpu.Tensor{}, rows)
	all, err := gpu.ToHost(b, buf)
	if err != nil {
		t.Fatalf("Linear in one buffer: %v", err)
	}
	want := make([]float64, rows*out)
	for i := range rows {
		for o := range out {
			for k := range in {
				want[i*out+o] += float64(xh[i*in+k]) * wide[o*in+k]
			}
		}
	}
	checkClose(t, "Linear in one buffer", all[rows*in:], want, in)
	for i, v := range all[:rows*in] {
		if v != xh[i] {
			t.Fatalf("Linear in one buffer: x[%d] changed from %v to %v", i, xh[i], v)
		}
	}
	b.Free(w)
	b.Free(buf)
}

func convCase(t *testing.T, b *Backend, r *rand.Rand, outC int, p gpu.ConvParams, bf16 bool, budget float64) {
	t.Helper()
	label := fmt.Sprintf("Conv2D %d→%d %dx%d k%dx%d s%d bf16=%v budget=%g", p.InC, outC, p.InH, p.InW, p.KH, p.KW, p.Stride, bf16, budget)
	k := p.KernelSize()
	img := randF32(r, p.InC*p.InH*p.InW, 1)
	bh := randF32(r, outC, 1)
	w, wide := weightT(t, b, r, outC, k, bf16)
	in, _ := gpu.FromHost(b, img)
	bias, _ := gpu.FromHost(b, bh)
	oh, ow := p.OutSize()
	out, _ := gpu.FromHost(b, refmath.NaNs(outC*oh*ow))
	b.Conv2D(out, in, w, bias, p)
	got, err := gpu.ToHost(b, out)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	want := make([]float64, outC*oh*ow)
	for o := range outC {
		for y := range oh {
			for x := range ow {
				s := float64(bh[o])
				for c := range p.InC {
					for ky := range p.KH {
						for kx := range p.KW {
							iy, ix := y*p.Stride+ky-p.PadTop, x*p.Stride+kx-p.PadLeft
							if iy >= 0 && ix >= 0 && iy < p.InH && ix < p.InW {
								s += float64(img[(c*p.InH+iy)*p.InW+ix]) * wide[o*k+(c*p.KH+ky)*p.KW+kx]
							}
						}
					}
				}
				want[(o*oh+y)*ow+x] = s
			}
		}
	}
	checkClose(t, label, got, want, k)
	for _, x := range []gpu.Tensor{w, in, bias, out} {
		b.Free(x)
	}
}
