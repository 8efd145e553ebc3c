package thumbcache

import (
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/internal/testfix"
)

func TestThumbnailer(t *testing.T) {
	dir := t.TempDir()
	src := testfix.WritePNG(t, dir, "big.png", 600, 300, nil)
	cache := filepath.Join(dir, "thumbs")
	th := New(cache, 128, 2, 1<<20)
	done := make(chan image.Image, 1)
	if _, ok := th.Get("k", src, func(img image.Image, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- img
	}); ok {
		t.Fatal("thumbnail in memory before it was made")
	}
	var img image.Image
	select {
	case img = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("thumbnail not made")
	}
	if b := img.Bounds(); b.Dx() != 128 || b.Dy() != 64 {
		t.Errorf("thumbnail %v, want 128×64", b)
	}
	if got, ok := th.Get("k", src, nil); !ok || got != img {
		t.Error("thumbnail not kept in memory")
	}
	if _, err := os.Stat(filepath.Join(cache, "k.png")); err != nil {
		t.Errorf("thumbnail not cached on disk: %v", err)
	}
	th.Close()

	// A new thumbnailer reads the disk cache even when the source is gone.
	os.Remove(src)
	th2 := New(cache, 128, 1, 1<<20)
	defer th2.Close()
	errc := make(chan error, 1)
	th2.Get("k", src, func(_ image.Image, err error) { errc <- err })
	if err := <-errc; err != nil {
		t.Errorf("disk cache not used: %v", err)
	}
	th2.Get("missing", filepath.Join(dir, "nope.png"), func(_ image.Image, err error) { errc <- err })
	if err := <-errc; err == nil {
		t.Error("no error for a missing source")
	}
}

func TestImageLRU(t *testing.T) {
	c := newImageLRU(3 * 10 * 10 * 4)
	img := func() image.Image { return image.NewRGBA(image.Rect(0, 0, 10, 10)) }
	c.add("a", img())
	c.add("b", img())
	c.add("c", img())
	c.get("a") // a is now the most recent
	c.add("d", img())
	if _, ok := c.get("b"); ok {
		t.Error("least recently used entry not evicted")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if c.len() != 3 || c.used != 3*400 {
		t.Errorf("len %d, used %d", c.len(), c.used)
	}
}

func TestDownscaleAverages(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	// Left 2×2 block black, right 2×2 block white.
	for y := range 2 {
		for x := 2; x < 4; x++ {
			o := src.PixOffset(x, y)
			copy(src.Pix[o:o+4], []byte{255, 255, 255, 255})
		}
		for x := range 2 {
			src.Pix[src.PixOffset(x, y)+3] = 255
		}
	}
	got := Downscale(src, 2)
	if b := got.Bounds(); b.Dx() != 2 || b.Dy() != 1 {
		t.Fatalf("size %v", b)
	}
	if l, r := got.Pix[0:4], got.Pix[4:8]; l[0] != 0 || r[0] != 255 || l[3] != 255 {
		t.Errorf("pixels %v %v", l, r)
	}
	mid := image.NewRGBA(image.Rect(0, 0, 2, 1))
	copy(mid.Pix, []byte{0, 0, 0, 255, 200, 100, 50, 255})
	if p := Downscale(mid, 1).Pix; p[0] != 100 || p[1] != 50 || p[2] != 25 {
		t.Errorf("average %v, want 100 50 25", p[:4])
	}
	if w, h := FitSize(1000, 10, 256); w != 256 || h != 3 {
		t.Errorf("fitSize 1000×10 → %d×%d", w, h)
	}
}
