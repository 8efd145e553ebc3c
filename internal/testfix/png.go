package testfix

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Pattern is a w×h image whose bytes run through a fixed pattern, so two sizes never look alike.
func Pattern(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	return img
}

// SavePNG encodes img as a PNG file at path, failing t on any error.
func SavePNG(t testing.TB, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// WritePNG writes Pattern(w, h) as dir/name and returns its path. save, when not nil, writes
// the file instead of a plain PNG encoding (a writer that adds metadata, say).
func WritePNG(t testing.TB, dir, name string, w, h int, save func(path string, img image.Image) error) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if save == nil {
		SavePNG(t, path, Pattern(w, h))
		return path
	}
	if err := save(path, Pattern(w, h)); err != nil {
		t.Fatal(err)
	}
	return path
}
