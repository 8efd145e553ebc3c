package gpu

// ConvParams describes a 2-D convolution of one image [InC, InH, InW] (channels first) by a
// kernel Weight{Out: OutC, In: InC·KH·KW} ([OutC, InC, KH, KW] row-major). Padding is zeros
// and may differ per side (the FLUX VAE pads only right and bottom before its stride-2 convs).
type ConvParams struct {
	InC, InH, InW                        int
	KH, KW, Stride                       int
	PadTop, PadLeft, PadBottom, PadRight int
}

// OutSize returns the output height and width.
func (p ConvParams) OutSize() (h, w int) {
	h = (p.InH+p.PadTop+p.PadBottom-p.KH)/p.Stride + 1
	w = (p.InW+p.PadLeft+p.PadRight-p.KW)/p.Stride + 1
	return h, w
}

// convTile is the number of output pixels unfolded (im2col) at a time.
const convTile = 4096

// Conv2D computes out [w.Out, outH, outW] = conv(in, w) + bias (bias may be nil) as im2col
// tiles multiplied by the kernel matrix.
func (d *Device) Conv2D(out, in []float32, w Weight, bias []float32, p ConvParams) {
	oh, ow := p.OutSize()
	npix := oh * ow
	kdim := p.InC * p.KH * p.KW
	if p.KH == 1 && p.KW == 1 && p.Stride == 1 && p.PadTop == 0 && p.PadLeft == 0 && p.PadBottom == 0 && p.PadRight == 0 {
		// 1×1 convolution: out = W · in directly.
		wf := d.weightF32(w)
		d.backend.Sgemm(false, false, w.Out, npix, kdim, 1, wf, kdim, in, npix, 0, out, npix)
	} else {
		wf := d.weightF32(w)
		tile := min(convTile, npix)
		col := make([]float32, kdim*tile)
		for p0 := 0; p0 < npix; p0 += tile {
			n := min(tile, npix-p0)
			// col[kidx, j] for output pixel p0+j.
			d.Parallel(kdim, func(lo, hi int) {
				for kidx := lo; kidx < hi; kidx++ {
					c := kidx / (p.KH * p.KW)
					ky := (kidx / p.KW) % p.KH
					kx := kidx % p.KW
					row := col[kidx*n : (kidx+1)*n]
					plane := in[c*p.InH*p.InW : (c+1)*p.InH*p.InW]
					for j := 0; j < n; j++ {
						pix := p0 + j
						y := (pix/ow)*p.Stride + ky - p.PadTop
						x := (pix%ow)*p.Stride + kx - p.PadLeft
						if y < 0 || y >= p.InH || x < 0 || x >= p.InW {
							row[j] = 0
						} else {
							row[j] = plane[y*p.InW+x]
						}
					}
				}
			})
			d.backend.Sgemm(false, false, w.Out, n, kdim, 1, wf, kdim, col[:kdim*n], n, 0, out[p0:], npix)
		}
	}
	if bias != nil {
		d.Parallel(w.Out, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				row := out[o*npix : (o+1)*npix]
				b := bias[o]
				for i := range row {
					row[i] += b
				}
			}
		})
	}
}

// weightF32 returns the weight as float32 (a view for f32, a converted copy for bf16).
func (d *Device) weightF32(w Weight) []float32 {
	if w.F32 != nil {
		return w.F32
	}
	out := make([]float32, len(w.BF16))
	d.Parallel(len(out), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = bf16(w.BF16[i])
		}
	})
	return out
}
