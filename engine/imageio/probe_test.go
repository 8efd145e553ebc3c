package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probeImage is a 64×48 picture with some texture, so that its data spans several chunks
// and scans.
func probeImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), uint8(x * y), 255})
		}
	}
	return img
}

func encoded(t *testing.T, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if format == "png" {
		err = (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&b, probeImage())
	} else {
		err = jpeg.Encode(&b, probeImage(), &jpeg.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Issue 36 item 14: a truncated PNG was taken as a reference (its header reads fine), with a
// broken thumbnail and "Fits". Probe refuses a PNG or JPEG cut anywhere after its header.
func TestProbeRefusesTruncatedImages(t *testing.T) {
	for _, format := range []string{"png", "jpeg"} {
		whole := encoded(t, format)
		cfg, err := Probe(writeFile(t, "whole."+format, whole), nil)
		if err != nil || cfg.Width != 64 || cfg.Height != 48 {
			t.Fatalf("%s: whole image: %v %v", format, cfg, err)
		}
		for _, keep := range []float64{0.5, 0.9, 0.99} {
			n := int(float64(len(whole)) * keep)
			_, err := Probe(writeFile(t, "cut."+format, whole[:n]), nil)
			if err == nil || !strings.Contains(err.Error(), format+" image is truncated") {
				t.Errorf("%s cut to %d of %d bytes: %v", format, n, len(whole), err)
			}
		}
	}
	// The last byte of a PNG is IEND's checksum.
	whole := encoded(t, "png")
	if _, err := Probe(writeFile(t, "cut.png", whole[:len(whole)-1]), nil); err == nil {
		t.Error("a PNG without its last byte is accepted")
	}
}

// A damaged chunk is refused by its checksum.
func TestProbeRefusesBadChecksum(t *testing.T) {
	b := encoded(t, "png")
	b[len(b)/2] ^= 0x55
	_, err := Probe(writeFile(t, "bad.png", b), nil)
	if err == nil || !strings.Contains(err.Error(), "fails its checksum") {
		t.Errorf("a damaged IDAT: %v", err)
	}
}

// Probe applies the header's limits and check before reading further.
func TestProbeChecksTheHeader(t *testing.T) {
	if _, err := Probe(writeFile(t, "a.png", []byte("not an image")), nil); err == nil || !strings.Contains(err.Error(), "unsupported image format") {
		t.Errorf("a text file: %v", err)
	}
	if _, err := Probe(writeFile(t, "e.png", nil), nil); err == nil {
		t.Error("an empty file is accepted")
	}
	if _, err := Probe(writeFile(t, "s.png", encoded(t, "png")), CheckReference); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("a 64×48 reference: %v", err)
	}
}

// Probe never panics on what a file holds.
func FuzzProbe(f *testing.F) {
	f.Add([]byte(pngSignature))
	for _, format := range []string{"png", "jpeg"} {
		var b bytes.Buffer
		if format == "png" {
			_ = png.Encode(&b, probeImage())
		} else {
			_ = jpeg.Encode(&b, probeImage(), nil)
		}
		f.Add(b.Bytes())
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = Probe(p, nil)
	})
}
