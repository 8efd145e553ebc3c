package gpu

// SiLU computes y = x·sigmoid(x) element-wise. y may alias x.
func (d *Device) SiLU(y, x []float32) {
	d.Parallel(len(x), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = silu(x[i])
		}
	})
}

func silu(v float32) float32 { return v / (1 + expf(-v)) }

// SwiGLU computes y[r, j] = silu(x[r, j])·x[r, hidden+j] for x [rows, 2·hidden] (the
// gate half first), giving y [rows, hidden]. y must not overlap x.
func (d *Device) SwiGLU(y, x []float32, rows, hidden int) {
	d.Parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr := x[r*2*hidden : (r+1)*2*hidden]
			yr := y[r*hidden : (r+1)*hidden]
			for j := range yr {
				yr[j] = silu(xr[j]) * xr[hidden+j]
			}
		}
	})
}

// SoftmaxRows replaces each row of x [rows, cols] by its softmax (max-subtracted, float32 exp).
func (d *Device) SoftmaxRows(x []float32, rows, cols int) {
	d.Parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row := x[r*cols : (r+1)*cols]
			inv := 1 / expShifted(row)
			for i := range row {
				row[i] *= inv
			}
		}
	})
}
