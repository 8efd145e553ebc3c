package gputest

import (
	"math"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// refLayerNorm is (x − mean)/sqrt(var + eps)·(1 + scale) + shift per row (nil: 0).
func refLayerNorm(x []float32, rows, dim int, eps float64, scale, shift []float32) []float64 {
	want := make([]float64, rows*dim)
	for i := 0; i < rows; i++ {
		xr := refmath.Widen(x[i*dim : (i+1)*dim])
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
			if scale != nil {
				o *= 1 + float64(scale[j])
			}
			if shift != nil {
				o += float64(shift[j])
			}
			want[i*dim+j] = o
		}
	}
	return want
}

// TestLayerNorm checks LayerNorm without modulation, with FLUX.2's (1 + scale) and shift
// (each alone, both, and all-zero vectors), out of place and in place.
func TestLayerNorm(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	const eps = 1e-6
	for _, sh := range [][2]int{{1, 1}, {1, 7}, {7, 129}, {129, 64}, {3, 3072}} {
		rows, dim := sh[0], sh[1]
		x := e.randn(rows*dim, 3) // an offset mean checks the centring
		scale, shift := e.randScaled(dim, 0.5), e.randn(dim, 0)
		zero := make([]float32, dim)
		for _, mod := range []struct {
			name         string
			scale, shift []float32
		}{{"none", nil, nil}, {"scale+shift", scale, shift}, {"scale", scale, nil}, {"shift", nil, shift}, {"zeros", zero, zero}} {
			lb := label("rows=%d dim=%d mod=%s", rows, dim, mod.name)
			want := refLayerNorm(x, rows, dim, eps, mod.scale, mod.shift)
			vec := func(v []float32) gpu.Tensor {
				if v == nil {
					return gpu.Tensor{}
				}
				return e.weight(v).t
			}
			xt, y := e.in(x, rows, dim), e.out(rows*dim, rows, dim)
			b.LayerNorm(y.t, xt.t, vec(mod.scale), vec(mod.shift), rows, dim, eps)
			got := e.read(lb, y)
			if dim == 1 {
				// Zero variance: (x − mean) is exactly 0, only the shift remains.
				e.checkExact(lb, got, f32(want))
			} else {
				e.check(lb, got, want, tolDiv)
			}
			// In place.
			xc := e.tensor(x, false, rows, dim)
			b.LayerNorm(xc.t, xc.t, vec(mod.scale), vec(mod.shift), rows, dim, eps)
			if dim == 1 {
				e.checkExact(lb+" in place", e.read(lb, xc), f32(want))
			} else {
				e.check(lb+" in place", e.read(lb, xc), want, tolDiv)
			}
			e.done(lb)
		}
	}
}

// refRMS returns v·rsqrt(mean(v²) + eps)·w (w nil: 1).
func refRMS(v []float32, eps float64, w []float32) []float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(ss/float64(len(v))+eps)
	out := make([]float64, len(v))
	for j, x := range v {
		out[j] = float64(x) * inv
		if w != nil {
			out[j] *= float64(w[j])
		}
	}
	return out
}

// TestRMSNorm checks RMSNorm with and without weight, out of place and in place.
func TestRMSNorm(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	const eps = 1e-6
	for _, sh := range [][2]int{{1, 1}, {1, 7}, {7, 128}, {129, 129}, {2, 3072}} {
		rows, dim := sh[0], sh[1]
		x := e.randn(rows*dim, 0.5)
		weight := e.randn(dim, 1)
		for _, withW := range []bool{false, true} {
			var w []float32
			var wt gpu.Tensor
			if withW {
				w, wt = weight, e.weight(weight).t
			}
			want := make([]float64, 0, rows*dim)
			for i := 0; i < rows; i++ {
				want = append(want, refRMS(x[i*dim:(i+1)*dim], eps, w)...)
			}
			lb := label("rows=%d dim=%d weight=%v", rows, dim, withW)
			xt, y := e.in(x, rows, dim), e.out(rows*dim, rows, dim)
			b.RMSNorm(y.t, xt.t, wt, rows, dim, eps)
			e.check(lb, e.read(lb, y), want, tolDiv)
			xc := e.tensor(x, false, rows, dim)
			b.RMSNorm(xc.t, xc.t, wt, rows, dim, eps)
			e.check(lb+" in place", e.read(lb, xc), want, tolDiv)
			e.done(lb)
		}
	}
}

// TestHeadRMSNorm checks HeadRMSNorm on the q and k parts of fused [rows, q|k|v] projections:
// only the heads·headDim values at the start of each row of the view change.
func TestHeadRMSNorm(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	const eps = 1e-6
	// rows, heads, headDim, stride; the view starts at off (the k part of a fused row).
	for _, sh := range [][5]int{{1, 1, 2, 2, 0}, {7, 3, 8, 72, 24}, {129, 2, 128, 773, 256}, {5, 24, 128, 9216, 3072}, {3, 1, 64, 67, 0}} {
		rows, heads, hd, stride, off := sh[0], sh[1], sh[2], sh[3], sh[4]
		x := e.randn(rows*stride, 0.5)
		weight := e.randn(hd, 1)
		for _, withW := range []bool{false, true} {
			var w []float32
			var wt gpu.Tensor
			if withW {
				w, wt = weight, e.weight(weight).t
			}
			lb := label("rows=%d heads=%d headDim=%d stride=%d offset=%d weight=%v", rows, heads, hd, stride, off, withW)
			var want, gotN []float64
			xt := e.tensor(x, false, rows, stride)
			b.HeadRMSNorm(xt.t.From(off), wt, rows, stride, heads, hd, eps)
			got := e.read(lb, xt)
			changed := make([]bool, len(x))
			for r := 0; r < rows; r++ {
				for h := 0; h < heads; h++ {
					lo := r*stride + off + h*hd
					want = append(want, refRMS(x[lo:lo+hd], eps, w)...)
					gotN = append(gotN, refmath.Widen(got[lo:lo+hd])...)
					for i := lo; i < lo+hd; i++ {
						changed[i] = true
					}
				}
			}
			e.check(lb, f32(gotN), want, tolDiv)
			for i, v := range got {
				if !changed[i] && math.Float32bits(v) != math.Float32bits(x[i]) {
					e.t.Fatalf("%s: element %d (row %d col %d) outside the heads was overwritten", lb, i, i/stride, i%stride)
				}
			}
			e.done(lb)
		}
	}
}

// TestGroupNorm checks GroupNorm with and without gamma and beta, out of place and in place.
func TestGroupNorm(t *testing.T, b gpu.Backend, o Options) {
	e := newEnv(t, b, o)
	const eps = 1e-6
	for _, sh := range [][3]int{{2, 1, 1}, {8, 7, 2}, {32, 129, 8}, {64, 4096, 32}, {7, 13, 7}} {
		channels, hw, groups := sh[0], sh[1], sh[2]
		x := e.randn(channels*hw, -2)
		gamma, beta := e.randn(channels, 1), e.randn(channels, 0)
		for _, affine := range []bool{false, true} {
			var g, bt []float32
			var gT, bT gpu.Tensor
			if affine {
				g, bt = gamma, beta
				gT, bT = e.weight(gamma).t, e.weight(beta).t
			}
			cpg := channels / groups
			want := make([]float64, channels*hw)
			for gi := 0; gi < groups; gi++ {
				seg := refmath.Widen(x[gi*cpg*hw : (gi+1)*cpg*hw])
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
						o = o*float64(g[c]) + float64(bt[c])
					}
					want[gi*cpg*hw+i] = o
				}
			}
			lb := label("C=%d hw=%d groups=%d affine=%v", channels, hw, groups, affine)
			xt, y := e.in(x, channels, hw), e.out(channels*hw, channels, hw)
			b.GroupNorm(y.t, xt.t, gT, bT, channels, hw, groups, eps)
			got := e.read(lb, y)
			if cpg*hw == 1 {
				e.checkExact(lb, got, f32(want))
				e.done(lb)
				continue
			}
			e.check(lb, got, want, tolDiv)
			xc := e.tensor(x, false, channels, hw)
			b.GroupNorm(xc.t, xc.t, gT, bT, channels, hw, groups, eps)
			e.check(lb+" in place", e.read(lb, xc), want, tolDiv)
			e.done(lb)
		}
	}
}
