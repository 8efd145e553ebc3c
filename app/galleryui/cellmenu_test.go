package galleryui

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/gallery"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// openCellMenu right-clicks the grid cell of file; a menu must open.
func openCellMenu(t *testing.T, h *harness, file string) {
	t.Helper()
	u := h.ui
	test.TapSecondary(galleryCellFor(t, u, file))
	if u.gal.menu == nil || !u.gal.menu.Visible() || h.win.Canvas().Overlays().Top() == nil {
		t.Fatalf("right-clicking %s opened no menu", file)
	}
}

// tapMenuItem taps the item labelled label in the open cell menu.
func tapMenuItem(t *testing.T, h *harness, file, label string) {
	t.Helper()
	openCellMenu(t, h, file)
	e, _ := h.ui.gal.Entry(file)
	items := h.ui.gal.cellMenu(e).Items // the same items the open menu was made from
	i := slices.IndexFunc(items, func(it *fyne.MenuItem) bool { return it.Label == label })
	if i < 0 {
		t.Fatalf("the menu of %s has no %q", file, label)
	}
	tap, ok := h.ui.gal.menu.Items[i].(fyne.Tappable)
	if !ok {
		t.Fatalf("menu row %d is not tappable", i)
	}
	test.Tap(tap)
	if h.ui.gal.menu.Visible() {
		t.Errorf("the menu stays open after %q", label)
	}
}

// menuGallery writes a gallery of two 96×80 images (big enough to be references) under
// data: img-00.png "a red castle" (seed 1) and img-01.png "a blue sea" (seed 2, newer).
func menuGallery(t *testing.T, data string) {
	t.Helper()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, p := range []string{"a red castle", "a blue sea"} {
		writeTestPNG(t, dir, fmt.Sprintf("img-%02d.png", i), 96, 80,
			&imageio.Metadata{Settings: schema.Settings{Prompt: p, Seed: uint64(i + 1), Width: 96, Height: 80, Steps: 2}, Created: t0.Add(time.Duration(i) * time.Minute)})
	}
}

func menuLabels(u *testUI, file string) []string {
	e, _ := u.gal.Entry(file)
	var out []string
	for _, it := range u.gal.cellMenu(e).Items {
		if !it.IsSeparator {
			out = append(out, it.Label)
		}
	}
	return out
}

// Issue 12: a right click on a gallery image opens a menu whose actions act on that image,
// while the viewer keeps showing another one.
func TestGalleryCellMenu(t *testing.T) {
	data := t.TempDir()
	menuGallery(t, data)
	h := newHarness(t, data, false)
	u := h.ui
	u.gal.SelectEntry("img-01.png", nil)
	h.settle()
	const file = "img-00.png"
	path := filepath.Join(data, "gallery", file)
	viewerUnchanged := func(after string) {
		t.Helper()
		if !u.view.ShownOK || u.view.Shown.File != "img-01.png" {
			t.Errorf("after %s the viewer shows %q", after, u.view.Shown.File)
		}
	}
	want := []string{"Render larger", "Use as reference", "Reuse settings", "Favourite", "Copy image", "Show in folder", "Delete"}
	if got := menuLabels(u, file); !slices.Equal(got, want) {
		t.Errorf("menu %q, want %q", got, want)
	}

	var larger []string
	u.gal.RenderLarger = func(e gallery.Entry) { larger = append(larger, e.File) }
	tapMenuItem(t, h, file, "Render larger")
	if !slices.Equal(larger, []string{file}) {
		t.Errorf("Render larger rendered %v, want %s", larger, file)
	}
	viewerUnchanged("Render larger")

	tapMenuItem(t, h, file, "Use as reference")
	if !slices.Equal(u.refs, []string{path}) {
		t.Errorf("reference %v, want %s", u.refs, path)
	}
	viewerUnchanged("Use as reference")

	tapMenuItem(t, h, file, "Reuse settings")
	if len(u.restored) != 1 || u.restored[0].Prompt != "a red castle" || u.restored[0].Seed != 1 {
		t.Errorf("Reuse settings restored %+v, want the red castle's", u.restored)
	}
	viewerUnchanged("Reuse settings")

	tapMenuItem(t, h, file, "Favourite")
	h.waitFor("the star", 5*time.Second, func() bool { e, _ := u.gal.Entry(file); return e.Favourite })
	if got := menuLabels(u, file); got[3] != "Unfavourite" {
		t.Errorf("a favourite's menu offers %q", got[3])
	}
	tapMenuItem(t, h, file, "Unfavourite")
	h.waitFor("the star to go", 5*time.Second, func() bool { e, _ := u.gal.Entry(file); return !e.Favourite })

	var mu sync.Mutex
	var copied []byte
	u.view.copyPNG = func(b []byte) error { mu.Lock(); defer mu.Unlock(); copied = b; return nil }
	tapMenuItem(t, h, file, "Copy image")
	h.waitFor("the copy", 5*time.Second, func() bool { return strings.Contains(u.Status.Text, "Copied the image "+file) })
	mu.Lock()
	img, err := png.Decode(bytes.NewReader(copied))
	mu.Unlock()
	if err != nil || img.Bounds().Dx() != 96 || img.Bounds().Dy() != 80 {
		t.Errorf("the clipboard does not hold the 96×80 image: %v", err)
	}

	revealed := make(chan string, 1)
	u.gal.revealFile = func(p string) error { revealed <- p; return nil }
	tapMenuItem(t, h, file, "Show in folder")
	select {
	case p := <-revealed:
		if p != path {
			t.Errorf("revealed %s, want %s", p, path)
		}
	case <-time.After(5 * time.Second):
		t.Error("Show in folder showed nothing")
	}
	viewerUnchanged("Copy image and Show in folder")

	tapMenuItem(t, h, file, "Delete")
	h.waitFor("the deletion", 5*time.Second, func() bool { return len(u.gal.Visible) == 1 && u.gal.undoBar.Visible() })
	viewerUnchanged("Delete")
	test.Tap(u.gal.UndoBtn)
	h.waitFor("the undo", 5*time.Second, func() bool { return len(u.gal.Visible) == 2 })
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Undo did not bring the file back: %v", err)
	}
}

// An image without Kleinbild settings offers no Reuse settings.
func TestGalleryCellMenuWithoutSettings(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "plain.png", 32, 32, nil)
	h := newHarness(t, data, false)
	u := h.ui
	h.settle()
	openCellMenu(t, h, "plain.png")
	e, _ := u.gal.Entry("plain.png")
	offered := false
	for _, it := range u.gal.cellMenu(e).Items {
		if it.Label == "Reuse settings" {
			offered = !it.Disabled
		}
	}
	if offered {
		t.Error("Reuse settings is offered for an image without settings")
	}
	u.gal.menu.Hide()
}
