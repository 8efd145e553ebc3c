package inpaint

import (
	"fmt"
	"math"
)

// DefaultFeather is the width in pixels of the seam KeepUnmasked blends over.
const DefaultFeather = 8

// KeepUnmasked pastes the original's pixels back outside the mask after decoding, so that
// no tint or shift of the VAE round trip reaches the parts the user did not paint. bin is
// the binarised pixel mask (1 = repaint) of the pipeline's size, like orig and gen. A pixel
// at Euclidean distance d from the nearest masked pixel gets
// gen·a + orig·(1 − a) with a = max(0, 1 − d/feather), rounded: masked pixels (d = 0) are
// the generated ones, pixels at feather or more px from the mask are exactly the
// original's, and the band between is a linear ramp. feather 0 gives a hard edge.
func KeepUnmasked(orig, gen RGB, bin []uint8, feather int) (RGB, error) {
	w, h := orig.W, orig.H
	if gen.W != w || gen.H != h || len(orig.Pix) != w*h*3 || len(gen.Pix) != w*h*3 || len(bin) != w*h {
		return RGB{}, fmt.Errorf("keep unmasked: original %d×%d, generated %d×%d and a mask of %d values do not match", w, h, gen.W, gen.H, len(bin))
	}
	if feather < 0 {
		return RGB{}, fmt.Errorf("keep unmasked: feather %d px is negative", feather)
	}
	d2 := maskDistance2(bin, w, h, feather)
	out := make([]uint8, len(orig.Pix))
	for i := 0; i < w*h; i++ {
		var a float64
		switch {
		case bin[i] != 0:
			a = 1
		case feather > 0 && d2[i] < feather*feather:
			a = 1 - math.Sqrt(float64(d2[i]))/float64(feather)
		}
		for c := 0; c < 3; c++ {
			o, g := float64(orig.Pix[i*3+c]), float64(gen.Pix[i*3+c])
			switch a {
			case 0:
				out[i*3+c] = orig.Pix[i*3+c]
			case 1:
				out[i*3+c] = gen.Pix[i*3+c]
			default:
				out[i*3+c] = uint8(math.Round(o + a*(g-o)))
			}
		}
	}
	return RGB{Pix: out, W: w, H: h}, nil
}

// maskDistance2 returns, per pixel, the squared Euclidean distance to the nearest pixel
// with bin != 0, exact up to r (values above r² mean "r or farther"): a vertical sweep gives
// each pixel its distance to the nearest masked pixel of its column (capped at r+1), then
// each pixel takes the minimum of dx² + that over the columns within r.
func maskDistance2(bin []uint8, w, h, r int) []int {
	far := r + 1
	col := make([]int, w*h)
	for x := 0; x < w; x++ {
		d := far
		for y := 0; y < h; y++ {
			if bin[y*w+x] != 0 {
				d = 0
			} else if d < far {
				d++
			}
			col[y*w+x] = d
		}
		d = far
		for y := h - 1; y >= 0; y-- {
			if bin[y*w+x] != 0 {
				d = 0
			} else if d < far {
				d++
			}
			col[y*w+x] = min(col[y*w+x], d)
		}
	}
	out := make([]int, w*h)
	for y := 0; y < h; y++ {
		row := col[y*w : (y+1)*w]
		for x := 0; x < w; x++ {
			best := far * far
			for dx := -r; dx <= r; dx++ {
				xx := x + dx
				if xx < 0 || xx >= w {
					continue
				}
				if v := dx*dx + row[xx]*row[xx]; v < best {
					best = v
				}
			}
			out[y*w+x] = best
		}
	}
	return out
}
