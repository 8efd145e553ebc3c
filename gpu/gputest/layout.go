package gputest

import (
	"math"
	"testing"

	"kleinbild/gpu"
)

// TestUpsampleNearest2x checks UpsampleNearest2x (exact).
func TestUpsampleNearest2x(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, sh := range [][3]int{{1, 1, 1}, {3, 7, 5}, {5, 1, 9}, {2, 64, 33}} {
		c, h, w := sh[0], sh[1], sh[2]
		x := e.randn(c*h*w, 0)
		want := make([]float32, c*4*h*w)
		for ch := 0; ch < c; ch++ {
			for y := 0; y < 2*h; y++ {
				for xx := 0; xx < 2*w; xx++ {
					want[(ch*2*h+y)*2*w+xx] = x[(ch*h+y/2)*w+xx/2]
				}
			}
		}
		lb := label("C=%d h=%d w=%d", c, h, w)
		xt, y := e.in(x, c, h, w), e.out(c*4*h*w, c, 2*h, 2*w)
		b.UpsampleNearest2x(y.t, xt.t, c, h, w)
		e.checkExact(lb, e.read(lb, y), want)
		e.done(lb)
	}
}

// TestTranspose checks Transpose (exact), from tiny to latent-sized matrices.
func TestTranspose(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	shapes := [][2]int{{1, 1}, {1, 7}, {7, 1}, {129, 33}, {128, 3072}, {1024, 130}}
	if o.Short {
		shapes = shapes[:5]
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		x := e.randn(rows*cols, 0)
		want := make([]float32, rows*cols)
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				want[c*rows+r] = x[r*cols+c]
			}
		}
		lb := label("rows=%d cols=%d", rows, cols)
		xt, y := e.in(x, rows, cols), e.out(rows*cols, cols, rows)
		b.Transpose(y.t, xt.t, rows, cols)
		e.checkExact(lb, e.read(lb, y), want)
		e.done(lb)
	}
}

// refPatchify folds 2×2 patches of x [c, h, w] into y [4c, h/2, w/2], channel c·4 + dy·2 + dx.
func refPatchify(x []float32, c, h, w int) []float32 {
	h2, w2 := h/2, w/2
	y := make([]float32, len(x))
	for ci := 0; ci < c; ci++ {
		for dy := 0; dy < 2; dy++ {
			for dx := 0; dx < 2; dx++ {
				for yy := 0; yy < h2; yy++ {
					for xx := 0; xx < w2; xx++ {
						y[((ci*4+dy*2+dx)*h2+yy)*w2+xx] = x[(ci*h+2*yy+dy)*w+2*xx+dx]
					}
				}
			}
		}
	}
	return y
}

// refUnpatchify inverts refPatchify: x [c, h, w] to y [c/4, 2h, 2w].
func refUnpatchify(x []float32, c, h, w int) []float32 {
	y := make([]float32, len(x))
	for ci := 0; ci < c/4; ci++ {
		for dy := 0; dy < 2; dy++ {
			for dx := 0; dx < 2; dx++ {
				for yy := 0; yy < h; yy++ {
					for xx := 0; xx < w; xx++ {
						y[(ci*2*h+2*yy+dy)*2*w+2*xx+dx] = x[((ci*4+dy*2+dx)*h+yy)*w+xx]
					}
				}
			}
		}
	}
	return y
}

// TestPatchify checks Patchify and Unpatchify against the pipeline's index formulas and that
// they invert each other (exact).
func TestPatchify(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	// c, h, w of Patchify's input (h, w even).
	for _, sh := range [][3]int{{1, 2, 2}, {3, 6, 10}, {2, 2, 8}, {5, 14, 2}, {32, 16, 24}} {
		c, h, w := sh[0], sh[1], sh[2]
		x := e.randn(c*h*w, 0)
		lb := label("c=%d h=%d w=%d", c, h, w)
		xt, y := e.in(x, c, h, w), e.out(c*h*w, 4*c, h/2, w/2)
		b.Patchify(y.t, xt.t, c, h, w)
		e.checkExact("Patchify "+lb, e.read(lb, y), refPatchify(x, c, h, w))
		back := e.out(c*h*w, c, h, w)
		b.Unpatchify(back.t, y.t, 4*c, h/2, w/2)
		e.checkExact("round trip "+lb, e.read(lb, back), x)

		// Unpatchify of fresh values [4c, h/2, w/2].
		z := e.randn(c*h*w, 0)
		zt, u := e.in(z, 4*c, h/2, w/2), e.out(c*h*w, c, h, w)
		b.Unpatchify(u.t, zt.t, 4*c, h/2, w/2)
		e.checkExact("Unpatchify "+lb, e.read(lb, u), refUnpatchify(z, 4*c, h/2, w/2))
		e.done(lb)
	}
}

// TestBatchNorm checks BatchNorm in both directions against the float32 formulas:
// y = float32(x − mean)/std within WGSL's 2.5 ulp of the exact quotient (the subtraction is
// exact to the float32 rounding, the division is not: an NVIDIA H200 gave -1.5707967 where
// the correctly rounded quotient is -1.5707968), and y = float32(x·std) + mean exactly (or
// fused, see doc.go); out of place and in place.
func TestBatchNorm(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	for _, sh := range [][2]int{{1, 1}, {7, 13}, {32, 129}, {128, 64 * 48}} {
		channels, hw := sh[0], sh[1]
		x := e.randn(channels*hw, 0.2)
		mean, std := e.randScaled(channels, 0.5), make([]float32, channels)
		for i := range std {
			std[i] = float32(math.Sqrt(0.1 + 3*e.r.Float64() + 1e-4))
		}
		for _, inverse := range []bool{false, true} {
			want, fused := make([]float32, len(x)), make([]float32, len(x))
			quot := make([]float64, len(x))
			for i, v := range x {
				m, s := mean[i/hw], std[i/hw]
				if inverse {
					want[i] = float32(v*s) + m
					fused[i] = fma32(v, s, m)
				} else {
					quot[i] = float64(v-m) / float64(s)
				}
			}
			lb := label("C=%d hw=%d inverse=%v", channels, hw, inverse)
			check := func(lb string, got []float32) {
				if inverse {
					e.checkMulAdd(lb, got, want, fused)
				} else {
					e.checkULP(lb, got, quot, divULPs)
				}
			}
			xt, y := e.in(x, channels, hw), e.out(len(x), channels, hw)
			mt, st := e.weight(mean), e.in(std)
			b.BatchNorm(y.t, xt.t, mt.t, st.t, channels, hw, inverse)
			check(lb, e.read(lb, y))
			xc := e.tensor(x, false, channels, hw)
			b.BatchNorm(xc.t, xc.t, mt.t, st.t, channels, hw, inverse)
			check(lb+" in place", e.read(lb, xc))
			e.done(lb)
		}
	}
}
