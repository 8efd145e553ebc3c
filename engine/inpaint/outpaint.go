package inpaint

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"kleinbild/engine/imageio"
)

// CanvasGrey is the colour of the new canvas area an outpainting pads with (what the
// golden outpainting case sends: Image.new("RGB", size, (128, 128, 128))).
const CanvasGrey = 128

// Padding is how far outpainting extends a picture on each side, in pixels.
type Padding struct {
	Left, Top, Right, Bottom int
}

// IsZero reports whether p extends nothing.
func (p Padding) IsZero() bool { return p == Padding{} }

// Size is the canvas size for a w×h picture.
func (p Padding) Size(w, h int) (cw, ch int) {
	return w + p.Left + p.Right, h + p.Top + p.Bottom
}

// Validate checks p for a w×h picture: no negative side, and a canvas of at most maxSide
// pixels per side.
func (p Padding) Validate(w, h, maxSide int) error {
	if p.Left < 0 || p.Top < 0 || p.Right < 0 || p.Bottom < 0 {
		return fmt.Errorf("outpainting %d,%d,%d,%d: sides must not be negative", p.Left, p.Top, p.Right, p.Bottom)
	}
	// Each side is at most maxSide after this check, so the sums below cannot overflow.
	if p.Left > maxSide || p.Top > maxSide || p.Right > maxSide || p.Bottom > maxSide {
		return fmt.Errorf("outpainting %d,%d,%d,%d: more than %d px on a side", p.Left, p.Top, p.Right, p.Bottom, maxSide)
	}
	if cw, ch := p.Size(w, h); cw > maxSide || ch > maxSide {
		return fmt.Errorf("outpainting %d×%d by %d,%d,%d,%d gives %d×%d: at most %d px per side", w, h, p.Left, p.Top, p.Right, p.Bottom, cw, ch, maxSide)
	}
	return nil
}

// ParsePadding parses "L,T,R,B" (four non-negative pixel counts; spaces allowed), the
// form of the CLI's --outpaint.
func ParsePadding(s string) (Padding, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Padding{}, fmt.Errorf("outpainting %q: want four pixel counts L,T,R,B", s)
	}
	var v [4]int
	for i, part := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 0 {
			return Padding{}, fmt.Errorf("outpainting %q: %q is not a pixel count (a whole number, 0 or more)", s, strings.TrimSpace(part))
		}
		v[i] = n
	}
	return Padding{Left: v[0], Top: v[1], Right: v[2], Bottom: v[3]}, nil
}

// PadToAspect is the padding that extends a w×h picture to the aspect ratio aw:ah: the
// short dimension grows (never the other), both canvas sides are rounded up to multiples
// of 16 (so the pipeline needs no resize), and the picture stays centred (an odd extra
// pixel goes right or bottom). aw and ah must be positive.
func PadToAspect(w, h, aw, ah int) (Padding, error) {
	if w <= 0 || h <= 0 || aw <= 0 || ah <= 0 {
		return Padding{}, fmt.Errorf("aspect %d:%d for %d×%d: all must be positive", aw, ah, w, h)
	}
	cw, ch := w, h
	if int64(w)*int64(ah) < int64(h)*int64(aw) { // narrower than aw:ah: widen
		cw = int((int64(h)*int64(aw) + int64(ah) - 1) / int64(ah))
	} else {
		ch = int((int64(w)*int64(ah) + int64(aw) - 1) / int64(aw))
	}
	cw = (cw + Multiple - 1) / Multiple * Multiple
	ch = (ch + Multiple - 1) / Multiple * Multiple
	l, t := (cw-w)/2, (ch-h)/2
	return Padding{Left: l, Top: t, Right: cw - w - l, Bottom: ch - h - t}, nil
}

// Outpaint builds the outpainting input: a canvas of p.Size filled with CanvasGrey, the
// picture pasted at (Left, Top) (converted to RGB: alpha dropped), and its mask as L bytes,
// 255 (repaint) on the new area and 0 on the picture. Both then go through Image and Mask
// like any inpainting input.
func Outpaint(img image.Image, p Padding) (canvas RGB, mask []uint8, err error) {
	src, err := imageio.NewPillow(img)
	if err != nil {
		return RGB{}, nil, fmt.Errorf("image: %w", err)
	}
	w, h := src.Size()
	if err := p.Validate(w, h, imageio.MaxPixels); err != nil {
		return RGB{}, nil, err
	}
	cw, ch := p.Size(w, h)
	if int64(cw)*int64(ch) > imageio.MaxPixels {
		return RGB{}, nil, fmt.Errorf("outpainting canvas %d×%d is more than %d megapixels", cw, ch, imageio.MaxPixels>>20)
	}
	pix := make([]uint8, cw*ch*3)
	for i := range pix {
		pix[i] = CanvasGrey
	}
	mask = make([]uint8, cw*ch)
	for i := range mask {
		mask[i] = 255
	}
	paste(pix, cw, ch, src.RGB(), w, h, p.Left, p.Top)
	for y := 0; y < h; y++ {
		clear(mask[(y+p.Top)*cw+p.Left : (y+p.Top)*cw+p.Left+w])
	}
	return RGB{Pix: pix, W: cw, H: ch}, mask, nil
}

// NRGBA returns the picture as an opaque image (for the pipeline's Image and Mask, or to
// save it).
func (r RGB) NRGBA() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, r.W, r.H))
	for i := 0; i < r.W*r.H; i++ {
		copy(img.Pix[i*4:i*4+3], r.Pix[i*3:i*3+3])
		img.Pix[i*4+3] = 255
	}
	return img
}

// GrayImage wraps L bytes (w×h) as an image (a mask for Mask or to save it).
func GrayImage(l []uint8, w, h int) *image.Gray {
	return &image.Gray{Pix: l, Stride: w, Rect: image.Rect(0, 0, w, h)}
}
