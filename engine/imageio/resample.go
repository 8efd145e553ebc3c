package imageio

import "math"

// Pillow-compatible resampling (Pillow 9.4, src/libImaging/Resample.c and Geometry.c).
//
// LANCZOS (support 3) is separable: coefficients are computed in float64 per output pixel,
// normalised to sum 1, converted to fixed point with 22 fractional bits, and applied
// with integer accumulation; the horizontal pass runs first (only over the source rows the
// vertical pass needs) and its result is clipped to uint8 before the vertical pass.
// Images are 4 bytes per pixel; the first nch channels are resampled.

// precisionBits is Pillow's PRECISION_BITS (32 − 8 − 2).
const precisionBits = 32 - 8 - 2

const lanczosSupport = 3.0

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	x = float64(x * math.Pi)
	return math.Sin(x) / x
}

func lanczos(x float64) float64 {
	if -3 <= x && x < 3 {
		return float64(sinc(x) * sinc(x/3))
	}
	return 0
}

// coeffs is precompute_coeffs + normalize_coeffs_8bpc for a box [0, inSize): for output
// pixel i, source pixels bounds[2i] .. bounds[2i]+bounds[2i+1]−1 with fixed-point weights
// k[i*ksize:].
func coeffs(inSize, outSize int) (ksize int, bounds []int, k []int32) {
	scale := float64(float32(inSize)) / float64(outSize)
	filterscale := scale
	if filterscale < 1 {
		filterscale = 1
	}
	support := float64(lanczosSupport * filterscale)
	ksize = int(math.Ceil(support))*2 + 1
	bounds = make([]int, 2*outSize)
	k = make([]int32, outSize*ksize)
	w := make([]float64, ksize)
	for xx := 0; xx < outSize; xx++ {
		center := float64(float64(float64(xx)+0.5) * scale) // + in0 (0)
		ss := 1 / filterscale
		xmin := int(center - support + 0.5)
		if xmin < 0 {
			xmin = 0
		}
		xmax := int(center + support + 0.5)
		if xmax > inSize {
			xmax = inSize
		}
		xmax -= xmin
		ww := 0.0
		for x := 0; x < xmax; x++ {
			v := lanczos(float64((float64(x+xmin) - center + 0.5) * ss))
			w[x] = v
			ww += v
		}
		for x := 0; x < xmax; x++ {
			v := w[x]
			if ww != 0 {
				v /= ww
			}
			if v < 0 {
				k[xx*ksize+x] = int32(-0.5 + float64(v*(1<<precisionBits)))
			} else {
				k[xx*ksize+x] = int32(0.5 + float64(v*(1<<precisionBits)))
			}
		}
		bounds[2*xx] = xmin
		bounds[2*xx+1] = xmax
	}
	return ksize, bounds, k
}

// clip8 is Pillow's clip8: the integer part of a fixed-point sum, clamped to 0..255.
func clip8(v int32) uint8 {
	v >>= precisionBits
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// resampleLanczos resizes a w×h 4-byte-per-pixel image to ow×oh like Pillow's
// ImagingResample(LANCZOS) with the full-image box, resampling the first nch channels
// (the others are zero in the result).
func resampleLanczos(pix []uint8, w, h, ow, oh, nch int) []uint8 {
	needH := ow != w
	needV := oh != h
	if !needH && !needV {
		return append([]uint8(nil), pix...)
	}
	ksizeV, boundsV, kV := coeffs(h, oh)
	src, srcW := pix, w
	if needH {
		yFirst := boundsV[0]
		yLast := boundsV[2*oh-2] + boundsV[2*oh-1]
		if !needV {
			yFirst, yLast = 0, h
		}
		ksizeH, boundsH, kH := coeffs(w, ow)
		tmpH := yLast - yFirst
		tmp := make([]uint8, ow*tmpH*4)
		for y := 0; y < tmpH; y++ {
			row := pix[(y+yFirst)*w*4 : (y+yFirst+1)*w*4]
			out := tmp[y*ow*4 : (y+1)*ow*4]
			for xx := 0; xx < ow; xx++ {
				xmin, n := boundsH[2*xx], boundsH[2*xx+1]
				kk := kH[xx*ksizeH : xx*ksizeH+n]
				in := row[xmin*4 : (xmin+n)*4]
				ss0 := int32(1 << (precisionBits - 1))
				ss1, ss2, ss3 := ss0, ss0, ss0
				for x, kv := range kk {
					p := in[x*4 : x*4+4]
					ss0 += int32(p[0]) * kv
					ss1 += int32(p[1]) * kv
					ss2 += int32(p[2]) * kv
					ss3 += int32(p[3]) * kv
				}
				o := out[xx*4 : xx*4+4]
				o[0], o[1], o[2] = clip8(ss0), clip8(ss1), clip8(ss2)
				if nch == 4 {
					o[3] = clip8(ss3)
				}
			}
		}
		if needV {
			for i := 0; i < oh; i++ {
				boundsV[2*i] -= yFirst
			}
		}
		src, srcW = tmp, ow
	}
	if !needV {
		return src
	}
	out := make([]uint8, srcW*oh*4)
	acc := make([]int32, srcW*4)
	for yy := 0; yy < oh; yy++ {
		ymin, n := boundsV[2*yy], boundsV[2*yy+1]
		kk := kV[yy*ksizeV : yy*ksizeV+n]
		for i := range acc {
			acc[i] = 1 << (precisionBits - 1)
		}
		for y, kv := range kk {
			row := src[(y+ymin)*srcW*4 : (y+ymin+1)*srcW*4]
			for i, v := range row {
				acc[i] += int32(v) * kv
			}
		}
		o := out[yy*srcW*4 : (yy+1)*srcW*4]
		for i := range o {
			if i&3 < nch {
				o[i] = clip8(acc[i])
			}
		}
	}
	return out
}

// resampleNearest is Pillow's NEAREST resize (ImagingScaleAffine with a = (w/ow, h/oh)):
// source coordinates accumulate in float64 from (scale·0.5) by scale per pixel.
func resampleNearest(pix []uint8, w, h, ow, oh int) []uint8 {
	out := make([]uint8, ow*oh*4)
	ax := float64(float32(w)) / float64(ow)
	ay := float64(float32(h)) / float64(oh)
	xin := make([]int, ow)
	xo := ax * 0.5
	for x := range xin {
		xin[x] = coord(xo, w)
		xo += ax
	}
	yo := ay * 0.5
	for y := 0; y < oh; y++ {
		yi := coord(yo, h)
		yo += ay
		if yi < 0 {
			continue
		}
		row := pix[yi*w*4:]
		o := out[y*ow*4:]
		for x, xi := range xin {
			if xi >= 0 {
				copy(o[x*4:x*4+4], row[xi*4:xi*4+4])
			}
		}
	}
	return out
}

// coord is Pillow's COORD: truncation, −1 (no source pixel) outside 0..n−1.
func coord(v float64, n int) int {
	if v < 0 {
		return -1
	}
	i := int(v)
	if i >= n {
		return -1
	}
	return i
}
