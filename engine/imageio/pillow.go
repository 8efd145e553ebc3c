package imageio

import (
	"errors"
	"fmt"
	"image"
)

// Pillow is an 8-bit image held the way Pillow holds the decoded file (its mode decides how
// it is resized and converted), for pipelines that resize, crop and convert in Pillow's
// order: the inpainting pipeline resizes the image and the mask in their own modes and
// converts them to RGB and L afterwards.
type Pillow struct {
	p pilImage
}

// NewPillow converts a decoded image to Pillow's representation (see fromImage for how
// 16-bit, paletted and CMYK images are mapped). Images over MaxPixels are refused.
func NewPillow(img image.Image) (Pillow, error) {
	if img == nil {
		return Pillow{}, errors.New("no image")
	}
	b := img.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return Pillow{}, fmt.Errorf("image is empty (%d×%d)", b.Dx(), b.Dy())
	}
	if int64(b.Dx())*int64(b.Dy()) > MaxPixels {
		return Pillow{}, fmt.Errorf("image is %d×%d, more than %d megapixels", b.Dx(), b.Dy(), MaxPixels>>20)
	}
	return Pillow{fromImage(img)}, nil
}

// Size is the image's width and height.
func (p Pillow) Size() (w, h int) { return p.p.w, p.p.h }

// Resize is Image.resize((w, h), LANCZOS) in the image's mode (NEAREST for paletted
// images, as Pillow does); the same size gives an unchanged copy. w and h must be positive.
func (p Pillow) Resize(w, h int) Pillow {
	if w == p.p.w && h == p.p.h {
		q := p.p
		q.pix = append([]uint8(nil), p.p.pix...)
		return Pillow{q}
	}
	return Pillow{p.p.resize(w, h)}
}

// Crop is Image.crop((r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)): the part of r outside the
// image is zero (transparent black), as in Pillow. r must not be empty.
func (p Pillow) Crop(r image.Rectangle) Pillow {
	w, h := r.Dx(), r.Dy()
	out := pilImage{mode: p.p.mode, w: w, h: h, pix: make([]uint8, w*h*4)}
	for y := 0; y < h; y++ {
		sy := y + r.Min.Y
		if sy < 0 || sy >= p.p.h {
			continue
		}
		for x := 0; x < w; x++ {
			sx := x + r.Min.X
			if sx < 0 || sx >= p.p.w {
				continue
			}
			copy(out.pix[(y*w+x)*4:(y*w+x)*4+4], p.p.pix[(sy*p.p.w+sx)*4:])
		}
	}
	return Pillow{out}
}

// RGB is convert("RGB") as HWC bytes: alpha dropped (not blended), CMYK through Pillow's
// cmyk2rgb.
func (p Pillow) RGB() []uint8 {
	n := p.p.w * p.p.h
	out := make([]uint8, n*3)
	for i := 0; i < n; i++ {
		s := p.p.pix[i*4 : i*4+4]
		if p.p.mode == modeCMYK {
			nk := 255 - uint32(s[3])
			for c := 0; c < 3; c++ {
				out[i*3+c] = uint8(nk - muldiv255(uint32(s[c]), nk))
			}
			continue
		}
		out[i*3], out[i*3+1], out[i*3+2] = s[0], s[1], s[2]
	}
	return out
}

// L is convert("L"): Pillow's luma (19595·R + 38470·G + 7471·B + 0x8000) >> 16 of the RGB
// values (alpha ignored), one byte per pixel. Grey images keep their values.
func (p Pillow) L() []uint8 {
	rgb := p.RGB()
	out := make([]uint8, len(rgb)/3)
	for i := range out {
		out[i] = Luma(rgb[i*3], rgb[i*3+1], rgb[i*3+2])
	}
	return out
}

// Luma is Pillow's RGB -> L conversion of one pixel (ITU-R 601-2 in 16-bit fixed point).
func Luma(r, g, b uint8) uint8 {
	return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 0x8000) >> 16)
}

// ResampleRGB resizes HWC RGB bytes w×h to ow×oh with Pillow's LANCZOS (an RGB image's
// resize). The same size gives a copy.
func ResampleRGB(rgb []uint8, w, h, ow, oh int) []uint8 {
	return Pillow{rgbImage(rgb, w, h)}.Resize(ow, oh).RGB()
}

// rgbImage wraps HWC RGB bytes as an RGB pilImage.
func rgbImage(rgb []uint8, w, h int) pilImage {
	p := pilImage{mode: modeRGB, w: w, h: h, pix: make([]uint8, w*h*4)}
	for i := 0; i < w*h; i++ {
		copy(p.pix[i*4:i*4+3], rgb[i*3:i*3+3])
	}
	return p
}

// NewPillowRGB wraps HWC RGB bytes (w×h) as an RGB image.
func NewPillowRGB(rgb []uint8, w, h int) Pillow {
	return Pillow{rgbImage(rgb, w, h)}
}
