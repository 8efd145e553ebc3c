package cpu

// silu computes y = x·sigmoid(x) element-wise. y may alias x.
func (b *Backend) silu(y, x []float32) {
	b.parallel(len(x), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = silu(x[i])
		}
	})
}

func silu(v float32) float32 { return v / (1 + expf(-v)) }

// swiGLU computes y[r·ys + j] = silu(x[r·xs + j])·x[r·xs + hidden + j] for j < hidden (the gate
// half first), on rows xs (input) and ys (output) values apart: dense (xs = 2·hidden,
// ys = hidden) for Qwen3's MLP, strided for FLUX.2's fused single-block projection. y must not
// overlap x.
func (b *Backend) swiGLU(y, x []float32, rows, hidden, xs, ys int) {
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*xs : r*xs+2*hidden]
			yr := y[r*ys : r*ys+hidden]
			for j := range yr {
				yr[j] = silu(xr[j]) * xr[hidden+j]
			}
		}
	})
}
