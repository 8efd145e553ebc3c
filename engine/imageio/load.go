// Package imageio loads reference images and preprocesses them exactly like
// Flux2KleinPipeline (Pillow's LANCZOS area resize, center crop to multiples of 16, RGB,
// [-1, 1]), and writes/reads generated PNGs with their generation parameters embedded.
package imageio

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // register decoders for image.Decode
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"kleinbild/internal/safefile"
)

// MaxPixels is the largest image Load accepts: 64 Mi pixels (8192×8192). The size is read
// from the header before any pixel data is decoded.
const MaxPixels = 64 << 20

// Formats lists the file formats Load decodes.
const Formats = "PNG, JPEG, GIF, BMP, TIFF or WebP"

// MaxFileBytes is the largest image file Load reads (an uncompressed 16-bit RGBA TIFF of
// 8192×8192 pixels is 512 MiB).
const MaxFileBytes = 1 << 30

// Load decodes the image file at path (the first frame for animated formats). It refuses
// what is not a regular file (a FIFO, a device, a folder), empty files, files over
// MaxFileBytes and images over MaxPixels, the last before decoding them; errors name the file.
func Load(path string) (image.Image, error) {
	return load(path, nil)
}

// LoadReference is Load for a reference image: the size limits of CheckReference are also
// applied to the header, so an unusable image is refused before its pixels are decoded.
func LoadReference(path string) (image.Image, error) {
	return load(path, CheckReference)
}

// LoadChecked is Load with check (if not nil) also applied to the header before decoding:
// the one decoder for every image read from disk (references, gallery images, thumbnails).
func LoadChecked(path string, check func(w, h int) error) (image.Image, error) {
	return load(path, check)
}

func load(path string, check func(w, h int) error) (image.Image, error) {
	f, st, err := safefile.OpenRegular(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, pathless(err, path))
	}
	defer f.Close()
	if st.Size() == 0 {
		return nil, fmt.Errorf("image %s: is empty", path)
	}
	img, err := decode(f, check)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", path, err)
	}
	return img, nil
}

// pathless drops the *fs.PathError layer naming path (the caller names it already).
func pathless(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	return err
}

// CheckHeader reads an image header from r and applies the limits Load applies before
// decoding: a known format, a non-empty size of at most MaxPixels, and check (if not nil).
func CheckHeader(r io.Reader, check func(w, h int) error) (image.Config, string, error) {
	cfg, format, err := image.DecodeConfig(r)
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return cfg, "", fmt.Errorf("unsupported image format (want %s)", Formats)
		}
		return cfg, format, fmt.Errorf("unreadable image header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return cfg, format, fmt.Errorf("%s image has an empty size %d×%d", format, cfg.Width, cfg.Height)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxPixels {
		return cfg, format, fmt.Errorf("%s image is %d×%d = %.1f megapixels; at most %d megapixels (%d×%d) are accepted",
			format, cfg.Width, cfg.Height, float64(px)/(1<<20), MaxPixels>>20, 8192, 8192)
	}
	if check != nil {
		if err := check(cfg.Width, cfg.Height); err != nil {
			return cfg, format, err
		}
	}
	return cfg, format, nil
}

// decode checks the header, then decodes r (which must be seekable back to its start).
func decode(r io.ReadSeeker, check func(w, h int) error) (image.Image, error) {
	_, format, err := CheckHeader(bufio.NewReaderSize(r, 64<<10), check)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bufio.NewReaderSize(r, 64<<10))
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
