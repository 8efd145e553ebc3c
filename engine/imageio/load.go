// Package imageio loads reference images and preprocesses them exactly like
// Flux2KleinPipeline (Pillow's LANCZOS area resize, center crop to multiples of 16, RGB,
// [-1, 1]), and writes/reads generated PNGs with their generation parameters embedded.
package imageio

import (
	"errors"
	"fmt"
	"image"
	_ "image/gif" // register decoders for image.Decode
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// MaxPixels is the largest image Load accepts: 64 Mi pixels (8192×8192). The size is read
// from the header before any pixel data is decoded.
const MaxPixels = 64 << 20

// Formats lists the file formats Load decodes.
const Formats = "PNG, JPEG, GIF, BMP, TIFF or WebP"

// Load decodes the image file at path (the first frame for animated formats). It refuses
// images over MaxPixels before decoding them; errors name the file.
func Load(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	defer f.Close()
	img, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	return img, nil
}

// decode checks the header, then decodes r (which must be seekable back to its start).
func decode(r io.ReadSeeker) (image.Image, error) {
	cfg, format, err := image.DecodeConfig(r)
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, fmt.Errorf("unsupported image format (want %s)", Formats)
		}
		return nil, fmt.Errorf("unreadable image header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("%s image has an empty size %d×%d", format, cfg.Width, cfg.Height)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxPixels {
		return nil, fmt.Errorf("%s image is %d×%d = %.1f megapixels; at most %d megapixels (%d×%d) are accepted",
			format, cfg.Width, cfg.Height, float64(px)/(1<<20), MaxPixels>>20, 8192, 8192)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(r)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s image is truncated: %w", format, err)
		}
		return nil, fmt.Errorf("corrupt %s image: %w", format, err)
	}
	if b := img.Bounds(); b.Dx() <= 0 || b.Dy() <= 0 {
		return nil, fmt.Errorf("%s image decodes to an empty %d×%d picture", format, b.Dx(), b.Dy())
	}
	return img, nil
}
