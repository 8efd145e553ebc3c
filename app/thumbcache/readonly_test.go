package thumbcache

import (
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/internal/testfix"
)

// TestReadOnly: a read-only thumbnailer (the second window on a data folder, issue 23 item 9)
// uses the cached thumbnails but writes, replaces and removes none: a new thumbnail stays in
// memory, Put and Remove leave the folder alone, and a damaged cache file stays.
func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	src := testfix.WritePNG(t, dir, "big.png", 300, 150, nil)
	cache := filepath.Join(dir, "thumbs")
	w := New(cache, 64, 1, 1<<20)
	get(t, w, "cached", src)
	w.Close()
	if err := os.WriteFile(filepath.Join(cache, "damaged.png"), []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	listing := func() map[string]int64 {
		des, err := os.ReadDir(cache)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, de := range des {
			fi, _ := de.Info()
			m[de.Name()] = fi.Size()
		}
		return m
	}
	before := listing()

	ro := NewReadOnly(cache, 64, 1, 1<<20)
	defer ro.Close()
	if img := get(t, ro, "cached", src); img.Bounds().Dx() != 64 {
		t.Errorf("cached thumbnail %v", img.Bounds())
	}
	get(t, ro, "new", src)
	get(t, ro, "damaged", src)
	if _, ok := ro.Get("new", src, nil); !ok {
		t.Error("a new thumbnail is not kept in memory")
	}
	if err := ro.Put("put", image.NewNRGBA(image.Rect(0, 0, 100, 100))); err != nil {
		t.Error(err)
	}
	ro.Remove("cached")
	after := listing()
	if len(after) != len(before) {
		t.Errorf("cache folder %v, was %v", after, before)
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %d bytes, was %d", k, after[k], v)
		}
	}
}

// get waits for the thumbnail of src under key.
func get(t *testing.T, th *Thumbnailer, key, src string) image.Image {
	t.Helper()
	done := make(chan image.Image, 1)
	if img, ok := th.Get(key, src, func(img image.Image, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- img
	}); ok {
		return img
	}
	select {
	case img := <-done:
		return img
	case <-time.After(10 * time.Second):
		t.Fatal("thumbnail not made")
		return nil
	}
}
