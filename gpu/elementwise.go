package gpu

// Add computes y = a + b element-wise. y may alias a or b.
func (d *Device) Add(y, a, b []float32) {
	d.Parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = a[i] + b[i]
		}
	})
}

// Mul computes y = a·b element-wise. y may alias a or b.
func (d *Device) Mul(y, a, b []float32) {
	d.Parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = a[i] * b[i]
		}
	})
}

// Scale computes y = s·x element-wise. y may alias x.
func (d *Device) Scale(y, x []float32, s float32) {
	d.Parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] = s * x[i]
		}
	})
}

// AddScaled computes y += s·x element-wise (axpy).
func (d *Device) AddScaled(y, x []float32, s float32) {
	d.Parallel(len(y), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] += s * x[i]
		}
	})
}

// UpsampleNearest2x doubles the height and width of x [C, H, W] into y [C, 2H, 2W].
func (d *Device) UpsampleNearest2x(y, x []float32, channels, h, w int) {
	d.Parallel(channels, func(lo, hi int) {
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
