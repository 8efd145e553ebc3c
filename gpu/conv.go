package gpu

// ConvParams describes a 2-D convolution of one image [InC, InH, InW] (channels first) by a
// kernel Weight{Out: OutC, In: InC·KH·KW} ([OutC, InC, KH, KW] row-major). Padding is zeros
// and may differ per side (the FLUX VAE pads only right and bottom before its stride-2 convs).
// A Stride of 0 means 1.
type ConvParams struct {
	InC, InH, InW                        int
	KH, KW, Stride                       int
	PadTop, PadLeft, PadBottom, PadRight int
}

// OutSize returns the output height and width.
func (p ConvParams) OutSize() (h, w int) {
	s := max(p.Stride, 1)
	h = (p.InH+p.PadTop+p.PadBottom-p.KH)/s + 1
	w = (p.InW+p.PadLeft+p.PadRight-p.KW)/s + 1
	return h, w
}

// convTile is the largest number of output pixels unfolded (im2col) at a time; convColFloats
// caps the unfolded tile (kdim × pixels) at 8 MiB so that wide kernels use fewer pixels.
const (
	convTile      = 4096
	convMinTile   = 256
	convColFloats = 1 << 21
)

// Conv2D computes out [w.Out, outH, outW] = conv(in, w) + bias (bias may be nil) as im2col
// tiles multiplied by the kernel matrix.
//
// A bf16 kernel is widened into a pooled buffer on every call rather than cached: that is one
// pass over O·C·KH·KW values against 2·O·C·KH·KW·outH·outW flops of product, about 1% for the
// VAE's 512-channel layers on a 64×64 latent (512² image) and less for bigger images, and a
// cache keyed by the slice would have to trust that its memory is never reused. Callers that
// convolve tiny images by big bf16 kernels many times can widen the kernel once themselves
// (Weight.F32).
func (d *Device) Conv2D(out, in []float32, w Weight, bias []float32, p ConvParams) {
	p.Stride = max(p.Stride, 1)
	oh, ow := p.OutSize()
	if oh <= 0 || ow <= 0 || w.Out == 0 {
		return
	}
	npix := oh * ow
	kdim := p.InC * p.KH * p.KW
	wf := w.F32
	if wf == nil {
		buf := d.convKernels.get(len(w.BF16))
		defer d.convKernels.put(buf)
		wf = *buf
		d.widenParallel(wf, w.BF16)
	}
	if p.KH == 1 && p.KW == 1 && p.Stride == 1 && p.PadTop == 0 && p.PadLeft == 0 && p.PadBottom == 0 && p.PadRight == 0 {
		// 1×1 convolution: out = W · in directly.
		d.backend.Sgemm(false, false, w.Out, npix, kdim, 1, wf, kdim, in, npix, 0, out, npix)
	} else {
		tile := min(npix, max(convMinTile, min(convTile, convColFloats/max(kdim, 1))))
		buf := d.convCols.get(kdim * tile)
		defer d.convCols.put(buf)
		for p0 := 0; p0 < npix; p0 += tile {
			n := min(tile, npix-p0)
			col := (*buf)[:kdim*n]
			d.Parallel(kdim, func(lo, hi int) {
				for kidx := lo; kidx < hi; kidx++ {
					im2colRow(col[kidx*n:(kidx+1)*n], in, kidx, p0, ow, p)
				}
			})
			d.backend.Sgemm(false, false, w.Out, n, kdim, 1, wf, kdim, col, n, 0, out[p0:], npix)
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

// im2colRow fills row[j] with the input value that kernel element kidx (= (c·KH + ky)·KW + kx)
// meets at output pixel p0+j (row-major over the output, ow wide), zero in the padding.
func im2colRow(row, in []float32, kidx, p0, ow int, p ConvParams) {
	c := kidx / (p.KH * p.KW)
	ky := (kidx / p.KW) % p.KH
	kx := kidx % p.KW
	plane := in[c*p.InH*p.InW : (c+1)*p.InH*p.InW]
	for j := 0; j < len(row); {
		pix := p0 + j
		oy, ox0 := pix/ow, pix%ow
		seg := row[j : j+min(ow-ox0, len(row)-j)]
		j += len(seg)
		y := oy*p.Stride + ky - p.PadTop
		if y < 0 || y >= p.InH {
			clear(seg)
			continue
		}
		src := plane[y*p.InW : (y+1)*p.InW]
		x0 := ox0*p.Stride + kx - p.PadLeft // input column of seg[0]
		if p.Stride == 1 {
			// Valid part seg[a:b] is a contiguous copy; zeros either side.
			a := min(max(0, -x0), len(seg))
			b := max(a, min(len(seg), p.InW-x0))
			clear(seg[:a])
			if b > a {
				copy(seg[a:b], src[x0+a:x0+b])
			}
			clear(seg[b:])
			continue
		}
		for t := range seg {
			if x := x0 + t*p.Stride; x >= 0 && x < p.InW {
				seg[t] = src[x]
			} else {
				seg[t] = 0
			}
		}
	}
}
