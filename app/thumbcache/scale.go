package thumbcache

import (
	"image"
	"image/draw"
)

// toRGBA returns img as *image.RGBA, converting only when needed.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// FitSize scales w×h down (never up) to fit in maxSide×maxSide, keeping the aspect ratio.
func FitSize(w, h, maxSide int) (int, int) {
	if w <= maxSide && h <= maxSide {
		return w, h
	}
	if w >= h {
		return maxSide, max(1, (h*maxSide+w/2)/w)
	}
	return max(1, (w*maxSide+h/2)/h), maxSide
}

// Downscale shrinks img to fit in maxSide×maxSide with a box filter (each output pixel is
// the mean of the source pixels it covers), which is what thumbnails need. Smaller images
// are returned as RGBA copies at their own size.
func Downscale(img image.Image, maxSide int) *image.RGBA {
	src := toRGBA(img)
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := FitSize(sw, sh, maxSide)
	if dw == sw && dh == sh {
		return src
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for dy := 0; dy < dh; dy++ {
		y0, y1 := dy*sh/dh, (dy+1)*sh/dh
		if y1 <= y0 {
			y1 = y0 + 1
		}
		for dx := 0; dx < dw; dx++ {
			x0, x1 := dx*sw/dw, (dx+1)*sw/dw
			if x1 <= x0 {
				x1 = x0 + 1
			}
			var r, g, b, a, n uint64
			for y := y0; y < y1; y++ {
				row := src.Pix[y*src.Stride+x0*4 : y*src.Stride+x1*4]
				for i := 0; i < len(row); i += 4 {
					r += uint64(row[i])
					g += uint64(row[i+1])
					b += uint64(row[i+2])
					a += uint64(row[i+3])
				}
				n += uint64(x1 - x0)
			}
			o := dy*dst.Stride + dx*4
			dst.Pix[o] = uint8((r + n/2) / n)
			dst.Pix[o+1] = uint8((g + n/2) / n)
			dst.Pix[o+2] = uint8((b + n/2) / n)
			dst.Pix[o+3] = uint8((a + n/2) / n)
		}
	}
	return dst
}
