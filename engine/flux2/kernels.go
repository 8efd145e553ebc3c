package flux2

import (
	"math"

	"kleinbild/gpu"
)

// The element-wise steps below fuse what the reference does in several tensor ops, with the
// same float32 rounding per step, where gpu.Device has no strided or gated variant.

// modNorm writes dst[r] = (1 + scale)·LayerNorm(x[r]) + shift for rows of width dim, where
// LayerNorm has no affine parameters (nn.LayerNorm(elementwise_affine=False)): the shared
// LayerNorm kernel with weight 1 + scale and bias shift. dst must not partially overlap x.
func modNorm(dev *gpu.Device, dst, x []float32, rows, dim int, eps float32, shift, scale []float32) {
	scale1 := make([]float32, dim)
	for i, s := range scale[:dim] {
		scale1[i] = 1 + s
	}
	dev.LayerNorm(dst, x, rows, dim, eps, scale1, shift[:dim])
}

// gatedAdd computes x[r] += gate ⊙ y[r] for rows of width dim (the gated residual).
func gatedAdd(dev *gpu.Device, x, y []float32, rows, dim int, gate []float32) {
	gate = gate[:dim]
	dev.Parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*dim : (r+1)*dim]
			yr := y[r*dim : (r+1)*dim]
			for i, g := range gate {
				xr[i] += g * yr[i]
			}
		}
	})
}

// rmsNormHeads applies torch.nn.RMSNorm(headDim) in place to every head of x, whose rows
// (tokens) are stride apart and hold heads consecutive headDim-wide slices from offset 0:
// v·rsqrt(mean(v²) + eps)·w, the mean taken in float32 as the reference does.
func rmsNormHeads(dev *gpu.Device, x []float32, rows, stride, heads, headDim int, eps float32, w []float32) {
	w = w[:headDim]
	dev.Parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for h := 0; h < heads; h++ {
				v := x[r*stride+h*headDim : r*stride+(h+1)*headDim]
				var ss float64
				for _, e := range v {
					ss += float64(e) * float64(e)
				}
				inv := float32(1 / math.Sqrt(float64(float32(ss/float64(headDim))+eps)))
				for i, e := range v {
					v[i] = e * inv * w[i]
				}
			}
		}
	})
}

// swiGLUStrided computes y[r·ys + j] = silu(x[r·xs + j])·x[r·xs + hidden + j] for j < hidden,
// the Flux2SwiGLU activation on rows that are xs (input) and ys (output) apart.
func swiGLUStrided(dev *gpu.Device, y, x []float32, rows, hidden, xs, ys int) {
	dev.Parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			a := x[r*xs : r*xs+hidden]
			b := x[r*xs+hidden : r*xs+2*hidden]
			o := y[r*ys : r*ys+hidden]
			for j, v := range a {
				o[j] = v / (1 + float32(math.Exp(float64(-v)))) * b[j]
			}
		}
	})
}

// silu returns x·sigmoid(x) element-wise in a new slice.
func silu(x []float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = v / (1 + float32(math.Exp(float64(-v))))
	}
	return y
}
