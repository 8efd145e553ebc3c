package imageio

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pngChunk is one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// pngHeaderOnly is a PNG claiming w×h RGBA pixels whose IDAT holds almost nothing: cheap on
// disk, but a decoder allocates the whole w×h picture before noticing.
func pngHeaderOnly(w, h uint32) []byte {
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	out := []byte(pngSignature)
	out = append(out, pngChunk("IHDR", ihdr[:])...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x62, 0x00, 0x00})...) // zlib, cut short
	return append(out, pngChunk("IEND", nil)...)
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A 65535×1024 reference is refused from its header: before the fix it was decoded first
// (about 270 MB allocated) and only then refused by the reference checks.
func TestLoadReferenceChecksHeaderFirst(t *testing.T) {
	p := writeFile(t, "wide.png", pngHeaderOnly(65535, 1024))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadReference(p)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "aspect ratio") || !strings.Contains(err.Error(), p) {
		t.Errorf("LoadReference = %v, want an aspect ratio error naming the file", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("refusing the header allocated %d MB", got>>20)
	}
	if _, err := LoadReference(writeFile(t, "tiny.png", pngHeaderOnly(16, 16))); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("tiny reference: %v", err)
	}
	// Load (thumbnails) has no reference limits, only MaxPixels.
	if _, err := Load(writeFile(t, "huge.png", pngHeaderOnly(1<<16, 1<<16))); err == nil || !strings.Contains(err.Error(), "megapixels") {
		t.Errorf("huge image: %v", err)
	}
}

// A folder or an empty file is named as such; before the fix both were an "unsupported
// image format".
func TestLoadFolderAndEmptyFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadReference(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("folder: %v", err)
	}
	if _, err := LoadReference(writeFile(t, "empty.png", nil)); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.png")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	var buf bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 64, 80))
	img.Set(1, 1, color.NRGBA{1, 2, 3, 255})
	png.Encode(&buf, img)
	got, err := LoadReference(writeFile(t, "ok.png", buf.Bytes()))
	if err != nil || got.Bounds().Dx() != 64 || got.Bounds().Dy() != 80 {
		t.Fatalf("valid reference: %v", err)
	}
}

// FuzzImageHeader feeds arbitrary bytes to the header check: it must not panic, and what
// it accepts must be within the reference limits.
func FuzzImageHeader(f *testing.F) {
	f.Add(pngHeaderOnly(65535, 1024))
	f.Add(pngHeaderOnly(64, 64))
	f.Add(pngHeaderOnly(0, 5))
	f.Add([]byte{})
	f.Add([]byte("GIF89a\x00\x10\x00\x10\x00\x00\x00"))
	f.Add([]byte("BM"))
	f.Add([]byte("\xff\xd8\xff\xc0\x00\x11\x08\x04\x00\xff\xff\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"))
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 64, 64)))
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := CheckHeader(bytes.NewReader(data), CheckReference)
		if err != nil {
			return
		}
		if cfg.Width < MinSidePx || cfg.Height < MinSidePx || int64(cfg.Width)*int64(cfg.Height) > MaxPixels ||
			cfg.Width > MaxAspectRatio*cfg.Height || cfg.Height > MaxAspectRatio*cfg.Width {
			t.Fatalf("accepted %d×%d", cfg.Width, cfg.Height)
		}
	})
}
