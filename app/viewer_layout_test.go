package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// Issue 36 item 18: the viewer's toolbar stays in one place from image to image, whatever
// the height of the prompt and details under the image (under the image, it jumped
// between y = 465 and 598 at 1366×768, so clicks missed while browsing).
func TestViewerToolbarStaysPut(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a matte painting of a lighthouse on a cliff in a storm, ", 12)
	writeTestPNG(t, dir, "a.png", 64, 48, &imageio.Metadata{Settings: schema.Settings{Prompt: "fox", Seed: 1, Width: 64, Height: 48, Steps: 4}})
	writeTestPNG(t, dir, "b.png", 48, 64, &imageio.Metadata{Settings: schema.Settings{Prompt: long, NegativePrompt: long, Seed: 2, Width: 48, Height: 64, Steps: 4}})
	writeTestPNG(t, dir, "c.png", 64, 64, nil)
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	for _, size := range []fyne.Size{fyne.NewSize(1350, 720), fyne.NewSize(1008, 552)} {
		h.win.Resize(size)
		var ys []float32
		for i := range 3 {
			e := h.at(i)
			u.gal.SelectEntry(e.File, nil)
			h.waitShownImage(e)
			relayout(h.win.Canvas().Content())
			requireShown(t, h.win, "the viewer's toolbar", u.view.Actions)
			ys = append(ys, fyne.CurrentApp().Driver().AbsolutePositionForObject(u.view.Actions).Y)
		}
		for i, y := range ys {
			if y != ys[0] {
				t.Errorf("in a %v window the toolbar of image %d is at y = %v, of image 0 at %v (all: %v)", size, i, y, ys[0], ys)
				break
			}
		}
	}
}

// Issue 36 item 24: after Reuse settings (or Reuse seed) Generate's row, where the kept
// seed shows, is in view in a short window however the form is scrolled. (Before, the
// only sign was the lock by the seed field, below the fold at 1024×600, and later runs
// silently reused the seed.) The sign itself, and pressing it, are app/form's
// TestKeptSeedShowsByGenerate.
func TestKeptSeedShowsByGenerate(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	c := &u.ctl
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	u.ReuseSeed(4242)
	c.Scroll.ScrollToTop()
	requireShown(t, h.win, "Generate", c.Generate)
	if !c.SeedIsLocked() {
		t.Error("Reuse seed left the seed random")
	}
}

// Issue 36 item 11: a field given the focus scrolls into view in a short window: Ctrl+L
// (which focuses the prompt) with the form scrolled down, and Tab onto a field below the
// fold. (Before, Ctrl+L typed into an off-screen prompt.)
func TestFocusScrollsTheFormToTheField(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	c := &u.ctl
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	cv := h.win.Canvas()
	c.Scroll.ScrollToBottom()
	cv.Focus(c.Prompt) // what Ctrl+L does (ui.go)
	requireShown(t, h.win, "the prompt after Ctrl+L", c.Prompt)
	cv.Unfocus()
	c.Scroll.ScrollToTop()
	cv.Focus(c.Seed)
	requireShown(t, h.win, "the seed field given the focus", c.Seed)
}
