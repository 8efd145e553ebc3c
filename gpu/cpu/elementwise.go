package cpu

// add computes y = p + q element-wise. y may alias p or q.
func (b *Backend) add(y, p, q []float32) {
	b.parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = p[i] + q[i]
		}
	})
}

// mul computes y = p·q element-wise. y may alias p or q.
func (b *Backend) mul(y, p, q []float32) {
	b.parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = p[i] * q[i]
		}
	})
}

// addScaled computes y += float32(s·x) element-wise: the product is rounded before the add
// (no fused multiply-add), as the reference scheduler's x + dt·v.
func (b *Backend) addScaled(y, x []float32, s float32) {
	b.parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] += float32(s * x[i])
		}
	})
}

// guidance computes cond = uncond + float32(g·float32(cond − uncond)) element-wise
// (classifier-free guidance, every step rounded to float32).
func (b *Backend) guidance(cond, uncond []float32, g float32) {
	b.parallel(len(cond), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			u := uncond[j]
			cond[j] = u + float32(g*float32(cond[j]-u))
		}
	})
}

// gatedAdd computes x[r] += gate ⊙ y[r] for rows of width dim (FLUX.2's gated residual), each
// product rounded to float32 before the add.
func (b *Backend) gatedAdd(x, y []float32, rows, dim int, gate []float32) {
	gate = gate[:dim]
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*dim : (r+1)*dim]
			yr := y[r*dim : (r+1)*dim]
			for i, g := range gate {
				xr[i] += float32(g * yr[i])
			}
		}
	})
}

// upsampleNearest2x doubles the height and width of x [C, H, W] into y [C, 2H, 2W].
func (b *Backend) upsampleNearest2x(y, x []float32, channels, h, w int) {
	b.parallel(channels, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			src := x[c*h*w : (c+1)*h*w]
			dst := y[c*4*h*w : (c+1)*4*h*w]
			for i := 0; i < 2*h; i++ {
				row := dst[i*2*w : (i+1)*2*w]
				s := src[(i/2)*w : (i/2+1)*w]
				for j := range row {
					row[j] = s[j/2]
				}
			}
		}
	})
}
