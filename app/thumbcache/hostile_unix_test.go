//go:build unix

package thumbcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// fakeHugePNG is a valid 1×1 PNG whose header claims w×h pixels (about 100 bytes).
func fakeHugePNG(t *testing.T, w, h uint32) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The IHDR chunk: length at 8, type at 12, data at 16 (width, height), CRC at 29.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// TestHostileCacheFiles: a FIFO or a fake 65535×65535 PNG in the thumbnail folder neither
// blocks loading (nor Close) nor decodes the claimed pixels; the thumbnail is made again
// from its source (issue 23 items 5 and 6: the FIFO hung, the fake header allocated 17 GB).
func TestHostileCacheFiles(t *testing.T) {
	dir := t.TempDir()
	src := testfix.WritePNG(t, dir, "src.png", 200, 100, nil)
	cache := filepath.Join(dir, "thumbs")
	os.MkdirAll(cache, 0o755)
	testfix.FIFO(t, cache, "fifo.png")
	os.WriteFile(filepath.Join(cache, "huge.png"), fakeHugePNG(t, 65535, 65535), 0o644)
	th := New(cache, 64, 2, 1<<20)
	for _, key := range []string{"fifo", "huge"} {
		done := make(chan error, 1)
		th.Get(key, src, func(img image.Image, err error) {
			if err == nil && img.Bounds().Dx() != 64 {
				t.Errorf("%s: thumbnail %v", key, img.Bounds())
			}
			done <- err
		})
		var err error
		label := fmt.Sprintf("thumbnail %q (cached as %s)", key, filepath.Join(cache, key+".png"))
		hangguard.WithinLabel(t, 30*time.Second, label, func() { err = <-done })
		if err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	hangguard.WithinLabel(t, 30*time.Second, "Close of the thumbnailer of "+cache, th.Close)
}
