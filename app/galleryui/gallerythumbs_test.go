package galleryui

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/gallery"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// shownCells are the grid's cells that show an image (the grid builds cells for its
// visible rows only).
func shownCells(u *testUI) []*CellView {
	var out []*CellView
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *CellView:
			if v.File != "" && v.Visible() {
				out = append(out, v)
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(u.gal.Grid)
	return out
}

func allFilled(cells []*CellView) bool {
	for _, c := range cells {
		if c.thumb.Img.Image == nil && !c.thumb.Broken.Visible() {
			return false
		}
	}
	return len(cells) > 0
}

// largeGallery starts the UI over n tiny images, written with their index as the
// gallery keeps it (each entry its own thumbnail key), so that no image is read at start.
func largeGallery(t *testing.T, n int) (*harness, string) {
	t.Helper()
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 8, 6))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 13)
	}
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var idx struct {
		Version int              `json:"version"`
		Entries []*gallery.Entry `json:"entries"`
	}
	idx.Version = 1
	for i := range n {
		name := fmt.Sprintf("img-%05d.png", i)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(name))
		idx.Entries = append(idx.Entries, &gallery.Entry{File: name, SHA256: hex.EncodeToString(sum[:]), Size: fi.Size(), ModTime: fi.ModTime().UnixNano(),
			HasMeta: true, Meta: imageio.Metadata{Settings: schema.Settings{Prompt: fmt.Sprintf("picture %d", i), Width: 8, Height: 6}, Created: t0.Add(time.Duration(i) * time.Minute)}})
	}
	raw, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, gallery.IndexName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data, false)
	if got := len(h.ui.gal.Visible); got != n {
		t.Fatalf("the grid shows %d images, want %d", got, n)
	}
	return h, data
}

func thumbsMade(data string) int {
	des, _ := os.ReadDir(filepath.Join(data, "thumbs"))
	return len(des)
}

// Issue 22 item 10: in a gallery of 5,000 images the visible thumbnails fill with no
// pointer event; after scroll jumps only the rows finally shown load (stale requests are
// cancelled); a wheel notch moves at least one row.
func TestLargeGalleryFillsWithoutPointer(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 5,000 images")
	}
	h, data := largeGallery(t, 5000)
	u := h.ui
	h.waitFor("the visible thumbnails", 20*time.Second, func() bool { return allFilled(shownCells(u)) })
	first := len(shownCells(u))

	// Three jumps before the UI loop runs again: only the last screen is wanted.
	h.settle()
	time.Sleep(100 * time.Millisecond)
	h.settle()
	before := thumbsMade(data)
	u.Thumbs.Pause() // the jumps come faster than the workers, as in a real window
	for _, off := range []float32{40000, 80000, 120000} {
		u.gal.Grid.ScrollToOffset(off)
	}
	u.Thumbs.Resume()
	h.waitFor("the thumbnails after a jump", 20*time.Second, func() bool { return allFilled(shownCells(u)) })
	h.settle()
	time.Sleep(300 * time.Millisecond) // let the workers finish anything left over
	h.settle()
	made := thumbsMade(data) - before
	t.Logf("%d cells on screen, %d thumbnails made after the jumps", first, made)
	if made > len(shownCells(u)) {
		t.Errorf("%d thumbnails made after jumping, %d cells shown: stale rows loaded", made, len(shownCells(u)))
	}

	// One wheel notch (Fyne's desktop driver reports 25 px on Linux) moves a row or more.
	off := u.gal.Grid.GetScrollOffset()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(u.gal.Grid).Add(fyne.NewPos(50, 50))
	test.Scroll(h.win.Canvas(), pos, 0, -wheelNotch())
	if moved := u.gal.Grid.GetScrollOffset() - off; moved < galleryCell {
		t.Errorf("a wheel notch moved the gallery %v px, less than a row", moved)
	}
}

// Issue 22 item 12: a search shows its results from the top, and a run does not scroll
// the grid by itself.
func TestGalleryScrollAfterSearchAndRun(t *testing.T) {
	h, _ := largeGallery(t, 300)
	u := h.ui
	u.gal.Grid.ScrollToOffset(2000)
	test.Type(u.gal.Search, "picture 1")
	if off := u.gal.Grid.GetScrollOffset(); off != 0 {
		t.Errorf("after a search the grid is at %v, not at the top", off)
	}
	u.gal.Search.SetText("")
	u.gal.Grid.ScrollToOffset(1500)
	off := u.gal.Grid.GetScrollOffset()
	// What a run does when an image is saved: the viewer shows it and the grid selects it.
	e := u.gal.Visible[0]
	u.gal.Refresh()
	u.gal.SelectEntry(e.File, nil)
	if got := u.gal.Grid.GetScrollOffset(); got != off {
		t.Errorf("showing a new image scrolled the grid from %v to %v", off, got)
	}
}
