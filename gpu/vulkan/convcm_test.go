//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
	"kleinbild/gpu/internal/refmath"
)

// runConv runs Conv2D on bf16 weights in b's current precision and reads the output.
func runConv(t *testing.T, b *Backend, img []float32, bits []uint16, outC int, p gpu.ConvParams) []float32 {
	t.Helper()
	oh, ow := p.OutSize()
	h := gpu.Held{B: b}
	defer h.Free()
	x := h.Keep(gpu.FromHost(b, img, p.InC, p.InH, p.InW))
	w := h.Keep(b.WeightBF16(bits, outC, p.InC*p.KH*p.KW))
	y := h.Keep(b.Alloc(gpu.F32, outC, oh*ow))
	if h.Err != nil {
		t.Fatal(h.Err)
	}
	b.Conv2D(y, x, w, gpu.Tensor{}, p)
	got := make([]float32, y.Len())
	if err := b.Read(got, y); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFastConvScales: images whose values overflow float16 (1e6, beyond the VAE's largest
// activations) or underflow it (1e-9) come out of the fast Conv2D within TolF16Linear of the
// float64 convolution: the image's scale keeps them in range (unscaled, the first is Inf and
// the second 0).
func TestFastConvScales(t *testing.T) {
	b := openFast(t)
	p := gpu.ConvParams{InC: 6, InH: 11, InW: 70, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
	const outC = 67
	k := p.InC * p.KH * p.KW
	r := rand.New(rand.NewPCG(9, 1))
	bits, wide := refmath.RandBF16(r, outC*k, 1/math.Sqrt(float64(k)))
	for _, scale := range []float32{1e6, 1e-9} {
		img := make([]float32, p.InC*p.InH*p.InW)
		for i := range img {
			img[i] = float32(r.NormFloat64()) * scale
		}
		got := runConv(t, b, img, bits, outC, p)
		want := convF64(img, wide, outC, p)
		compareFinite(t, got, want, gputest.TolF16Linear)
	}
}

// TestFastConvNonFinite: a NaN or Inf in the image makes the fast Conv2D's outputs
// non-finite exactly where the exact one's are.
func TestFastConvNonFinite(t *testing.T) {
	b := openFast(t)
	p := gpu.ConvParams{InC: 3, InH: 9, InW: 10, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}
	const outC = 5
	k := p.InC * p.KH * p.KW
	r := rand.New(rand.NewPCG(10, 1))
	bits, wide := refmath.RandBF16(r, outC*k, 0.2)
	img := make([]float32, p.InC*p.InH*p.InW)
	for i := range img {
		img[i] = float32(r.NormFloat64())
	}
	img[4] = float32(math.NaN())
	img[90+45] = float32(math.Inf(1))
	img[180+89] = float32(math.Inf(-1))
	got := runConv(t, b, img, bits, outC, p)
	compareFinite(t, got, convF64(img, wide, outC, p), gputest.TolF16Linear)
}

// convF64 is the convolution of img by the widened weights in float64.
func convF64(img []float32, w []float64, outC int, p gpu.ConvParams) []float64 {
	oh, ow := p.OutSize()
	out := make([]float64, outC*oh*ow)
	for oc := range outC {
		for y := range oh {
			for x := range ow {
				var s float64
				for ic := range p.InC {
					for ky := range p.KH {
						for kx := range p.KW {
							iy, ix := y*p.Stride+ky-p.PadTop, x*p.Stride+kx-p.PadLeft
							if iy < 0 || ix < 0 || iy >= p.InH || ix >= p.InW {
								continue
							}
							s += w[((oc*p.InC+ic)*p.KH+ky)*p.KW+kx] * float64(img[(ic*p.InH+iy)*p.InW+ix])
						}
					}
				}
				out[(oc*oh+y)*ow+x] = s
			}
		}
	}
	return out
}

// TestUnitKernelChoice: the matrix-unit kernels are chosen only with matrix units, attncm
// only where their shape's M divides its 16-query tile and subgroups have 8 invocations or
// more; a forced kernel wins.
func TestUnitKernelChoice(t *testing.T) {
	for _, c := range []struct {
		units            *matrixUnits
		force            string
		lin, conv, atten string
	}{
		{nil, "", "linearf16", "convf16", "attnf16"},
		{&matrixUnits{m: 16, n: 8, k: 16, subgroup: 32}, "", "linearcm", "convcm", "attncm"},
		{&matrixUnits{m: 32, n: 8, k: 16, subgroup: 32}, "", "linearcm", "convcm", "attnf16"},
		{&matrixUnits{m: 16, n: 8, k: 16, subgroup: 4}, "", "linearcm", "convcm", "attnf16"},
		{&matrixUnits{m: 16, n: 16, k: 16, subgroup: 32}, "convf16", "linearcm", "convf16", "attncm"},
		{&matrixUnits{m: 16, n: 16, k: 16, subgroup: 32}, "attnf16", "linearcm", "convcm", "attnf16"},
	} {
		b := &Backend{units: c.units, fastForce: c.force}
		if got := []string{b.fastKernel(), b.fastConvKernel(), b.fastAttnKernel()}; strings.Join(got, " ") != strings.Join([]string{c.lin, c.conv, c.atten}, " ") {
			t.Errorf("units %v, forced %q: %v, want %s %s %s", c.units, c.force, got, c.lin, c.conv, c.atten)
		}
	}
}

// TestCheckUnitTwins: the self-check's Conv2D and attention comparisons run on the twins
// against themselves find no difference and leave the precision exact.
func TestCheckUnitTwins(t *testing.T) {
	b := openTest(t).(*Backend)
	c1, err := b.checkConv("convf16", "convf16", convCheckShapes[0].outC, convCheckShapes[0].p)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := b.checkAttention("attnf16", "attnf16", attnCheckShapes[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []gpu.KernelCheck{c1, c2} {
		if c.RelL2 != 0 || c.MaxDiff != 0 || !c.OK() {
			t.Errorf("twin against itself: %+v", c)
		}
	}
	if b.fast || b.fastForce != "" {
		t.Errorf("after the checks: fast %v, forced kernel %q", b.fast, b.fastForce)
	}
}
