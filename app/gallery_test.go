package app

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/engine/imageio"
)

func TestGalleryReconcilesWithDisk(t *testing.T) {
	dir := t.TempDir()
	g, rep, err := openGallery(context.Background(), dir)
	if err != nil || g.Len() != 0 || !rep.Rebuilt {
		t.Fatalf("new gallery: %v, %d entries, %+v", err, g.Len(), rep)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 32, 32))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	a, err := g.Add(img, imageio.Metadata{Prompt: "a", Seed: 1, Created: t0})
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Add(img, imageio.Metadata{Prompt: "b", Seed: 1, Created: t0})
	if err != nil {
		t.Fatal(err)
	}
	if a.File == b.File {
		t.Fatalf("two images got the same file name %s", a.File)
	}

	// Behind the gallery's back: a PNG without metadata, one with, a stale temp file of an
	// interrupted write, a fresh one (maybe still being written), a damaged PNG, a deleted image.
	writeTestPNG(t, dir, "plain.png", 16, 16, nil)
	writeTestPNG(t, dir, "copied.png", 16, 16, &imageio.Metadata{Prompt: "copied", Created: t0.Add(time.Hour)})
	stale := filepath.Join(dir, ".x.png.tmp-123")
	fresh := filepath.Join(dir, ".y.png.tmp-456")
	os.WriteFile(stale, []byte("partial"), 0o644)
	os.WriteFile(fresh, []byte("partial"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.WriteFile(filepath.Join(dir, "broken.png"), []byte("\x89PNG\r\n\x1a\nrubbish"), 0o644)
	os.Remove(filepath.Join(dir, a.File))

	g2, rep, err := openGallery(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rebuilt || len(rep.Unreadable) != 1 || rep.Unreadable[0] != "broken.png" {
		t.Errorf("report %+v", rep)
	}
	var names []string
	for i := range g2.Len() {
		e, _ := g2.At(i)
		names = append(names, e.File)
	}
	// Newest first: copied (t0+1h), then plain (file time: now), b (t0)... plain has no
	// metadata, so its file time (now) sorts it first.
	if len(names) != 3 || names[0] != "plain.png" || names[1] != "copied.png" || names[2] != b.File {
		t.Errorf("entries %v", names)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale temporary file left behind")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a write in progress) was removed")
	}
	if e, ok := g2.ByPath(filepath.Join(dir, "copied.png")); !ok || !e.HasMeta || e.Meta.Prompt != "copied" {
		t.Errorf("copied.png: %+v %v", e, ok)
	}
	if e, ok := g2.ByPath(filepath.Join(dir, "plain.png")); !ok || e.HasMeta || e.SHA256 == "" {
		t.Errorf("plain.png: %+v %v", e, ok)
	}
	if err := g2.Delete("../escape.png"); err == nil {
		t.Error("Delete accepted a path outside the gallery")
	}
}

func TestThumbnailer(t *testing.T) {
	dir := t.TempDir()
	src := writeTestPNG(t, dir, "big.png", 600, 300, nil)
	cache := filepath.Join(dir, "thumbs")
	th := newThumbnailer(cache, 128, 2, 1<<20)
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
	th2 := newThumbnailer(cache, 128, 1, 1<<20)
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
	got := downscale(src, 2)
	if b := got.Bounds(); b.Dx() != 2 || b.Dy() != 1 {
		t.Fatalf("size %v", b)
	}
	if l, r := got.Pix[0:4], got.Pix[4:8]; l[0] != 0 || r[0] != 255 || l[3] != 255 {
		t.Errorf("pixels %v %v", l, r)
	}
	mid := image.NewRGBA(image.Rect(0, 0, 2, 1))
	copy(mid.Pix, []byte{0, 0, 0, 255, 200, 100, 50, 255})
	if p := downscale(mid, 1).Pix; p[0] != 100 || p[1] != 50 || p[2] != 25 {
		t.Errorf("average %v, want 100 50 25", p[:4])
	}
	if w, h := fitSize(1000, 10, 256); w != 256 || h != 3 {
		t.Errorf("fitSize 1000×10 → %d×%d", w, h)
	}
}
