package cpu

// transposeBlock is the tile side of the blocked transpose.
const transposeBlock = 32

// transpose writes dst [cols, rows] = srcᵀ for src [rows, cols], in 32×32 blocks, column
// blocks split over the workers.
func (b *Backend) transpose(dst, src []float32, rows, cols int) {
	b.parallel((cols+transposeBlock-1)/transposeBlock, func(lo, hi int) {
		for j0 := lo * transposeBlock; j0 < min(hi*transposeBlock, cols); j0 += transposeBlock {
			j1 := min(j0+transposeBlock, cols)
			for i0 := 0; i0 < rows; i0 += transposeBlock {
				i1 := min(i0+transposeBlock, rows)
				for j := j0; j < j1; j++ {
					d := dst[j*rows : (j+1)*rows]
					for i := i0; i < i1; i++ {
						d[i] = src[i*cols+j]
					}
				}
			}
		}
	})
}

// patchify folds 2×2 pixel patches of lat [c, h, w] (h, w even) into channels, giving out
// [4c, h/2, w/2] with channel c·4 + dy·2 + dx (the pipeline's _patchify_latents).
func (b *Backend) patchify(out, lat []float32, c, h, w int) {
	h2, w2 := h/2, w/2
	b.parallel(c, func(lo, hi int) {
		for ci := lo; ci < hi; ci++ {
			for dy := range 2 {
				for dx := range 2 {
					dst := out[(ci*4+dy*2+dx)*h2*w2:]
					for y := range h2 {
						src := lat[ci*h*w+(2*y+dy)*w+dx:]
						row := dst[y*w2 : (y+1)*w2]
						for x := range row {
							row[x] = src[2*x]
						}
					}
				}
			}
		}
	})
}

// unpatchify inverts patchify: x [c, h, w] (c a multiple of 4) becomes out [c/4, 2h, 2w]
// (the pipeline's _unpatchify_latents).
func (b *Backend) unpatchify(out, x []float32, c, h, w int) {
	W := 2 * w
	b.parallel(c/4, func(lo, hi int) {
		for ci := lo; ci < hi; ci++ {
			for dy := range 2 {
				for dx := range 2 {
					src := x[(ci*4+dy*2+dx)*h*w:]
					for y := range h {
						dst := out[ci*4*h*w+(2*y+dy)*W+dx:]
						row := src[y*w : (y+1)*w]
						for xx, v := range row {
							dst[2*xx] = v
						}
					}
				}
			}
		}
	})
}

// batchNorm applies the pipeline's latent BatchNorm per channel of x [channels, hw] into y:
// (x − mean)/std, or with inverse float32(x·std) + mean (the multiply rounded before the add,
// as torch does). y may alias x.
func (b *Backend) batchNorm(y, x, mean, std []float32, channels, hw int, inverse bool) {
	b.parallel(channels, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			m, s := mean[c], std[c]
			xr, yr := x[c*hw:(c+1)*hw], y[c*hw:(c+1)*hw]
			if inverse {
				for i, e := range xr {
					yr[i] = float32(e*s) + m
				}
			} else {
				for i, e := range xr {
					yr[i] = (e - m) / s
				}
			}
		}
	})
}
