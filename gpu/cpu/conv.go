package cpu

import "kleinbild/gpu"

// convTile is the largest number of output pixels unfolded (im2col) at a time; convColFloats
// caps the unfolded tile (kdim × pixels) at 8 MiB so that wide kernels use fewer pixels.
const (
	convTile      = 4096
	convMinTile   = 256
	convColFloats = 1 << 21
)

// ConvScratchFloats is the pooled im2col tile (float32 values) of a Conv2D with kdim =
// InC·KH·KW kernel values per output channel and npix output pixels, unless the convolution
// is 1×1 with stride 1 and no padding (which multiplies the input directly and uses none). The
// kernel is also widened (bf16) or copied (f32) into a pooled buffer of ConvKernelScratchFloats
// values.
func ConvScratchFloats(kdim, npix int) int { return kdim * convTileSize(kdim, npix) }

// ConvKernelScratchFloats is the pooled buffer (float32 values) a Conv2D widens a bf16 kernel
// [outC, kdim] into, or copies an f32 one into.
func ConvKernelScratchFloats(outC, kdim int) int { return outC * kdim }

// convTileSize is the number of output pixels unfolded at a time: at most convTile, at least
// convMinTile, and about convColFloats values per tile.
func convTileSize(kdim, npix int) int {
	return min(npix, max(convMinTile, min(convTile, convColFloats/max(kdim, 1))))
}

// conv2D computes out [w.out, outH, outW] = conv(in, w) + bias (bias may be nil) as im2col
// tiles multiplied by the kernel matrix.
//
// The kernel is widened (bf16) or copied (f32) into a pooled buffer on every call rather than
// cached, so that a mapped kernel never reaches the provider (package documentation, "Mapped
// weights"): that is one pass over O·C·KH·KW values against 2·O·C·KH·KW·outH·outW flops of
// product, about 1% for the VAE's 512-channel layers on a 64×64 latent (512² image) and less
// for bigger images, and a cache keyed by the slice would have to trust that its memory is
// never reused.
func (b *Backend) conv2D(out, in []float32, w matrix, bias []float32, p gpu.ConvParams) {
	p.Stride = max(p.Stride, 1)
	oh, ow := p.OutSize()
	if oh <= 0 || ow <= 0 || w.out == 0 {
		return
	}
	npix := oh * ow
	kdim := p.InC * p.KH * p.KW
	// The kernel is widened (bf16) or copied (f32) in Go, never handed to the provider as
	// it is (package documentation, "Mapped weights").
	buf := b.convKernels.get(max(len(w.bf16), len(w.f32)))
	defer b.convKernels.put(buf)
	wf := *buf
	if w.isBF16 {
		b.widenParallel(wf, w.bf16)
	} else {
		b.copyParallel(wf, w.f32)
	}
	if p.KH == 1 && p.KW == 1 && p.Stride == 1 && p.PadTop == 0 && p.PadLeft == 0 && p.PadBottom == 0 && p.PadRight == 0 {
		// 1×1 convolution: out = W · in directly.
		b.blas.Sgemm(false, false, w.out, npix, kdim, 1, wf, kdim, in, npix, 0, out, npix)
	} else {
		tile := convTileSize(kdim, npix)
		buf := b.convCols.get(kdim * tile)
		defer b.convCols.put(buf)
		for p0 := 0; p0 < npix && !b.interrupted(); p0 += tile {
			n := min(tile, npix-p0)
			col := (*buf)[:kdim*n]
			b.parallel(kdim, func(lo, hi int) {
				for kidx := lo; kidx < hi; kidx++ {
					im2colRow(col[kidx*n:(kidx+1)*n], in, kidx, p0, ow, p)
				}
			})
			b.blas.Sgemm(false, false, w.out, n, kdim, 1, wf, kdim, col, n, 0, out[p0:], npix)
		}
	}
	if bias != nil {
		b.parallel(w.out, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				row := out[o*npix : (o+1)*npix]
				bv := bias[o]
				for i := range row {
					row[i] += bv
				}
			}
		})
	}
}

// im2colRow fills row[j] with the input value that kernel element kidx (= (c·KH + ky)·KW + kx)
// meets at output pixel p0+j (row-major over the output, ow wide), zero in the padding.
func im2colRow(row, in []float32, kidx, p0, ow int, p gpu.ConvParams) {
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
