package imageio

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
)

// Reference-image limits of Flux2ImageProcessor.check_image_input, and the area above which
// the pipeline first resizes a reference (1024² pixels).
const (
	MinSidePx      = 64
	MaxAspectRatio = 8
	MaxAreaPx      = 1024 * 1024
	// SizeMultiple is what reference sides are floored to (vae_scale_factor·2).
	SizeMultiple = 16
)

// pilMode is how Pillow would hold the decoded image, which decides how it is resized and
// converted to RGB.
type pilMode int

const (
	modeRGB  pilMode = iota // RGB or L: LANCZOS on the colour channels
	modeRGBA                // RGBA or LA: LANCZOS on premultiplied values (Pillow's RGBa)
	modeP                   // paletted: Pillow resizes P images with NEAREST
	modeCMYK                // CMYK: LANCZOS in CMYK, converted to RGB after the crop
)

// pilImage is an 8-bit image with 4 bytes per pixel (RGB_, RGBA non-premultiplied, the
// palette colour for P, or CMYK).
type pilImage struct {
	mode pilMode
	w, h int
	pix  []uint8
}

// fromImage converts a decoded image to 8 bits per channel the way Pillow opens the file:
// 16-bit channels keep their high byte (Pillow does so for RGB/RGBA; for 16-bit gray it
// clips to 255 instead, which this port deliberately does not copy), paletted images their
// palette colours (alpha ignored, as convert("RGB") does), gray is replicated. JPEGs are
// decoded by Go's image/jpeg, whose IDCT and chroma upsampling differ slightly from
// libjpeg's (typically ±1..3 levels), so JPEG references are close to, not identical
// with, what Pillow would produce.
func fromImage(img image.Image) pilImage {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	p := pilImage{mode: modeRGB, w: w, h: h, pix: make([]uint8, w*h*4)}
	px := p.pix
	switch m := img.(type) {
	case *image.NRGBA:
		p.mode = modeRGBA
		for y := 0; y < h; y++ {
			copy(px[y*w*4:(y+1)*w*4], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return p
	case *image.NRGBA64:
		p.mode = modeRGBA
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w*4; x++ {
				px[y*w*4+x] = row[2*x] // big-endian: high byte first
			}
		}
		return p
	case *image.RGBA:
		if m.Opaque() {
			for y := 0; y < h; y++ {
				copy(px[y*w*4:(y+1)*w*4], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
			}
			return p
		}
	case *image.RGBA64:
		if m.Opaque() {
			for y := 0; y < h; y++ {
				row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
				for x := 0; x < w*4; x++ {
					px[y*w*4+x] = row[2*x]
				}
			}
			return p
		}
	case *image.Gray:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				v := row[x]
				px[(y*w+x)*4], px[(y*w+x)*4+1], px[(y*w+x)*4+2] = v, v, v
			}
		}
		return p
	case *image.Gray16:
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				v := row[2*x]
				px[(y*w+x)*4], px[(y*w+x)*4+1], px[(y*w+x)*4+2] = v, v, v
			}
		}
		return p
	case *image.Paletted:
		p.mode = modeP
		pal := make([][4]uint8, 256)
		for i, c := range m.Palette {
			if i >= len(pal) {
				break
			}
			n, ok := c.(color.NRGBA)
			if !ok {
				n = color.NRGBAModel.Convert(c).(color.NRGBA)
			}
			pal[i] = [4]uint8{n.R, n.G, n.B, 255}
		}
		for y := 0; y < h; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				copy(px[(y*w+x)*4:], pal[row[x]][:])
			}
		}
		return p
	case *image.CMYK:
		p.mode = modeCMYK
		for y := 0; y < h; y++ {
			copy(px[y*w*4:(y+1)*w*4], m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):])
		}
		return p
	case *image.YCbCr:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				yi := m.YOffset(b.Min.X+x, b.Min.Y+y)
				ci := m.COffset(b.Min.X+x, b.Min.Y+y)
				o := (y*w + x) * 4
				px[o], px[o+1], px[o+2] = color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			}
		}
		return p
	}
	// Anything else (premultiplied images with real alpha, WebP's NYCbCrA, ...): generic
	// path. Types with an alpha channel count as RGBA even when opaque, as in Pillow.
	if _, isAlpha := img.(*image.NYCbCrA); isAlpha {
		p.mode = modeRGBA
	} else if o, ok := img.(interface{ Opaque() bool }); !ok || !o.Opaque() {
		p.mode = modeRGBA
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			o := (y*w + x) * 4
			px[o], px[o+1], px[o+2], px[o+3] = c.R, c.G, c.B, c.A
		}
	}
	return p
}

// muldiv255 is Pillow's MULDIV255: a·b/255 rounded.
func muldiv255(a, b uint32) uint32 {
	t := a*b + 128
	return ((t >> 8) + t) >> 8
}

// premultiply is Pillow's RGBA -> RGBa conversion.
func premultiply(px []uint8) {
	for i := 0; i+3 < len(px); i += 4 {
		a := uint32(px[i+3])
		px[i] = uint8(muldiv255(uint32(px[i]), a))
		px[i+1] = uint8(muldiv255(uint32(px[i+1]), a))
		px[i+2] = uint8(muldiv255(uint32(px[i+2]), a))
	}
}

// unpremultiply is Pillow's RGBa -> RGBA conversion (integer division, clipped).
func unpremultiply(px []uint8) {
	for i := 0; i+3 < len(px); i += 4 {
		a := uint32(px[i+3])
		if a == 0 || a == 255 {
			continue
		}
		for c := 0; c < 3; c++ {
			px[i+c] = uint8(min(255*uint32(px[i+c])/a, 255))
		}
	}
}

// resize is Image.resize((w, h), LANCZOS) for the image's Pillow mode.
func (p pilImage) resize(ow, oh int) pilImage {
	out := pilImage{mode: p.mode, w: ow, h: oh}
	switch p.mode {
	case modeP:
		out.pix = resampleNearest(p.pix, p.w, p.h, ow, oh)
	case modeRGBA:
		pm := append([]uint8(nil), p.pix...)
		premultiply(pm)
		out.pix = resampleLanczos(pm, p.w, p.h, ow, oh, 4)
		unpremultiply(out.pix)
	case modeCMYK:
		out.pix = resampleLanczos(p.pix, p.w, p.h, ow, oh, 4)
	default:
		out.pix = resampleLanczos(p.pix, p.w, p.h, ow, oh, 3)
	}
	return out
}

// CheckReference applies Flux2ImageProcessor.check_image_input to a w×h reference: both
// sides at least MinSidePx and an aspect ratio of at most MaxAspectRatio.
func CheckReference(w, h int) error {
	if w < MinSidePx || h < MinSidePx {
		return fmt.Errorf("reference image too small: %d×%d, both sides must be at least %d px", w, h, MinSidePx)
	}
	if ar := math.Max(float64(w)/float64(h), float64(h)/float64(w)); ar > MaxAspectRatio {
		return fmt.Errorf("reference image aspect ratio too extreme: %d×%d (%.1f:1), at most %d:1", w, h, ar, MaxAspectRatio)
	}
	return nil
}

// TargetSize is the size a w×h reference gets in the pipeline: above MaxAreaPx it is first
// resized to about that area, (int(w·s), int(h·s)) with s = sqrt(MaxAreaPx/(w·h)); then
// both sides are floored to multiples of SizeMultiple (by cropping). resized is the
// intermediate size.
func TargetSize(w, h int) (resizedW, resizedH, outW, outH int) {
	resizedW, resizedH = w, h
	if int64(w)*int64(h) > MaxAreaPx {
		s := math.Sqrt(float64(MaxAreaPx) / float64(int64(w)*int64(h)))
		resizedW = int(float64(w) * s)
		resizedH = int(float64(h) * s)
	}
	return resizedW, resizedH, resizedW / SizeMultiple * SizeMultiple, resizedH / SizeMultiple * SizeMultiple
}

// ProcessedRGB is the 8-bit stage of Preprocess: the reference resized (if above 1024²
// pixels, with Pillow-compatible LANCZOS), center-cropped to multiples of 16 and converted
// to RGB (alpha dropped, not blended), as HWC bytes.
func ProcessedRGB(img image.Image) (pix []uint8, w, h int, err error) {
	if img == nil {
		return nil, 0, 0, errors.New("no image")
	}
	b := img.Bounds()
	if err := CheckReference(b.Dx(), b.Dy()); err != nil {
		return nil, 0, 0, err
	}
	if int64(b.Dx())*int64(b.Dy()) > MaxPixels {
		return nil, 0, 0, fmt.Errorf("image is %d×%d, more than %d megapixels", b.Dx(), b.Dy(), MaxPixels>>20)
	}
	p := fromImage(img)
	rw, rh, w, h := TargetSize(p.w, p.h)
	if rw != p.w || rh != p.h {
		p = p.resize(rw, rh)
	}
	left, top := (p.w-w)/2, (p.h-h)/2
	pix = make([]uint8, w*h*3)
	for y := 0; y < h; y++ {
		src := p.pix[((y+top)*p.w+left)*4:]
		dst := pix[y*w*3 : (y+1)*w*3]
		for x := 0; x < w; x++ {
			s := src[x*4 : x*4+4]
			if p.mode == modeCMYK {
				// Pillow's cmyk2rgb.
				nk := 255 - uint32(s[3])
				for c := 0; c < 3; c++ {
					dst[x*3+c] = uint8(nk - muldiv255(uint32(s[c]), nk))
				}
				continue
			}
			dst[x*3], dst[x*3+1], dst[x*3+2] = s[0], s[1], s[2]
		}
	}
	return pix, w, h, nil
}

// Preprocess turns a reference image into the VAE input the pipeline builds: ProcessedRGB,
// then 2·(u8/255)−1 in float32, channel-major [3, h, w].
func Preprocess(img image.Image) (tensor []float32, w, h int, err error) {
	pix, w, h, err := ProcessedRGB(img)
	if err != nil {
		return nil, 0, 0, err
	}
	return ToTensor(pix, w, h), w, h, nil
}

// ToTensor maps HWC RGB bytes to the [3, h, w] float32 tensor 2·(u8/255)−1.
func ToTensor(pix []uint8, w, h int) []float32 {
	t := make([]float32, 3*w*h)
	plane := w * h
	for i := 0; i < plane; i++ {
		for c := 0; c < 3; c++ {
			v := float32(pix[i*3+c]) / 255
			t[c*plane+i] = float32(2*v) - 1
		}
	}
	return t
}
