package galleryui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

func TestArrowKeysBrowseTheGallery(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	c := h.win.Canvas()

	// With nothing shown, an arrow shows the first image.
	key(c, fyne.KeyRight)
	if !u.view.ShownOK || u.view.Shown.File != h.at(0).File {
		t.Fatalf("after → with nothing shown: %q (shown %v), want %q", u.view.Shown.File, u.view.ShownOK, h.at(0).File)
	}
	for _, step := range []struct {
		key  fyne.KeyName
		want int
	}{
		{fyne.KeyRight, 1}, {fyne.KeyRight, 2}, {fyne.KeyRight, 2}, // stops at the last
		{fyne.KeyLeft, 1}, {fyne.KeyHome, 0}, {fyne.KeyLeft, 0}, {fyne.KeyEnd, 2},
	} {
		key(c, step.key)
		if want := h.at(step.want).File; u.view.Shown.File != want {
			t.Fatalf("after %s: shown %q, want %q", step.key, u.view.Shown.File, want)
		}
	}
	h.waitShownImage(h.at(2))
	if got := u.gal.Grid; got == nil {
		t.Fatal("no grid")
	}
}

func TestDeleteKeyDeletesTheShownImage(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	c := h.win.Canvas()
	mid, last := h.at(1), h.at(2)
	u.gal.SelectEntry(mid.File, nil)
	h.settle()

	key(c, fyne.KeyDelete)
	h.waitFor("the image to go to the trash", 10*time.Second, func() bool { return u.gal.IndexOf(mid.File) < 0 })
	h.settle()
	if u.Gallery.IndexOf(mid.File) >= 0 {
		t.Fatalf("%s is still in the gallery", mid.File)
	}
	if _, err := os.Stat(filepath.Join(u.Gallery.Dir(), mid.File)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still on disk: %v", mid.File, err)
	}
	if !u.view.ShownOK || u.view.Shown.File != last.File {
		t.Errorf("after deleting, shown %q (%v), want the next image %q", u.view.Shown.File, u.view.ShownOK, last.File)
	}
	// The last image's neighbour is the one before it.
	key(c, fyne.KeyDelete)
	h.waitFor("the last image to go", 10*time.Second, func() bool { return len(u.gal.Visible) == 1 })
	h.settle()
	if !u.view.ShownOK || u.view.Shown.File != h.at(0).File || u.Gallery.Len() != 1 {
		t.Errorf("after deleting the last: shown %q, %d images", u.view.Shown.File, u.Gallery.Len())
	}
	key(c, fyne.KeyDelete)
	h.waitFor("the only image to go", 10*time.Second, func() bool { return len(u.gal.Visible) == 0 })
	h.settle()
	if u.view.ShownOK || u.Gallery.Len() != 0 {
		t.Errorf("after deleting the only image: shown %v, %d images", u.view.ShownOK, u.Gallery.Len())
	}
	key(c, fyne.KeyDelete) // nothing shown: nothing happens
}

func TestZoomKeysButtonsAndMouse(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	c := h.win.Canvas()
	// An image area about the size the whole window gives it, so that three wheel notches
	// from fit stay below the largest zoom.
	h.win.Resize(fyne.NewSize(1000, 700))
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	z := u.view.Image
	if z.Size().Width < 300 {
		t.Fatalf("image area only %v", z.Size())
	}
	fit := z.Percent()
	if !z.Fitted() || fit <= 100 || u.view.Zoom.Level.Text == "" || !strings.HasPrefix(u.view.Zoom.Level.Text, "Fit") {
		t.Fatalf("a small image starts fitted and enlarged: fitted %v, %d%%, level %q", z.Fitted(), fit, u.view.Zoom.Level.Text)
	}

	key(c, fyne.KeyPlus)
	if z.Fitted() || z.Percent() != fit*5/4 && z.Percent() != fit*5/4+1 {
		t.Errorf("after +: fitted %v, %d%%, want about %d%%", z.Fitted(), z.Percent(), fit*5/4)
	}
	key(c, fyne.Key0)
	if !z.Fitted() || z.Percent() != fit {
		t.Errorf("after 0: fitted %v, %d%%", z.Fitted(), z.Percent())
	}
	key(c, fyne.Key1)
	if z.Percent() != 100 || u.view.Zoom.Level.Text != "100%" {
		t.Errorf("after 1: %d%%, level %q", z.Percent(), u.view.Zoom.Level.Text)
	}
	key(c, fyne.KeyMinus) // already the smallest the limits allow for a small image
	if z.Percent() != 100 {
		t.Errorf("after − at actual size: %d%%", z.Percent())
	}

	// The level button and a double click switch between fit and 100 %.
	test.Tap(u.view.Zoom.Level)
	if !z.Fitted() {
		t.Error("the level button did not fit the image")
	}
	z.DoubleTapped(&fyne.PointEvent{Position: fyne.NewPos(10, 10)})
	if z.Percent() != 100 {
		t.Errorf("double click: %d%%, want 100", z.Percent())
	}
	z.DoubleTapped(&fyne.PointEvent{})
	if !z.Fitted() {
		t.Error("second double click did not fit")
	}

	// The wheel zooms, the buttons zoom, dragging pans a zoomed image within bounds.
	for range 3 { // a notch zooms one step: three to be larger than the view both ways
		z.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(20, 20)}, Scrolled: fyne.NewDelta(0, 30)})
	}
	if z.Fitted() || z.Percent() <= fit {
		t.Errorf("after scrolling up: fitted %v, %d%%", z.Fitted(), z.Percent())
	}
	p := z.Percent()
	test.Tap(u.view.Zoom.in)
	if z.Percent() <= p {
		t.Errorf("zoom-in button: %d%% after %d%%", z.Percent(), p)
	}
	test.Tap(u.view.Zoom.out)
	if z.Percent() >= p+p/4 {
		t.Errorf("zoom-out button: %d%%", z.Percent())
	}
	for range 50 {
		z.Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(500, 500)})
	}
	z.DragEnd()
	if z.Offset().X > 0 || z.Offset().Y > 0 {
		t.Errorf("dragging moved the image off its edge: offset %v", z.Offset())
	}
	// Only the visible part is drawn.
	for range 40 {
		z.ZoomIn()
	}
	if b := z.Shown().Bounds(); b.Dx() >= 40 {
		t.Errorf("at %d%% the whole image (%v) is drawn", z.Percent(), b)
	}

	// Another image starts fitted.
	next := h.at(1)
	u.gal.SelectEntry(next.File, nil)
	h.waitShownImage(next)
	if !z.Fitted() {
		t.Error("the next image is not fitted")
	}
}

// Issue 12, defect 2: an image without Kleinbild metadata has no settings to restore, so
// "Reuse settings" and "Reuse seed" are disabled and the viewer says why.
func TestImageWithoutMetadataCannotBeReused(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "holiday.png", 64, 48, nil)
	writeTestPNG(t, dir, "lighthouse.png", 64, 48, &imageio.Metadata{
		Settings: schema.Settings{Prompt: "a lighthouse", Seed: 5, Width: 64, Height: 48},
	})
	h := newHarness(t, data, true)
	u := h.ui
	if u.Gallery.Len() != 2 {
		t.Fatalf("gallery has %d images, want the plain PNG and one with settings", u.Gallery.Len())
	}
	u.gal.SelectEntry("holiday.png", nil)
	h.settle()
	reuse := findButton(u.view.Actions, "Reuse settings")
	seed := findButton(u.view.Actions, "Reuse seed")
	if reuse == nil || seed == nil {
		t.Fatal("reuse buttons not found")
	}
	if !reuse.Disabled() || !seed.Disabled() {
		t.Errorf("reuse settings disabled %v, reuse seed disabled %v; want both disabled", reuse.Disabled(), seed.Disabled())
	}
	if !strings.Contains(strings.ToLower(u.view.Details.Text), "no kleinbild settings") {
		t.Errorf("details %q do not say why nothing can be reused", u.view.Details.Text)
	}
	test.Tap(reuse)
	test.Tap(seed)
	if len(u.restored) != 0 || len(u.seeds) != 0 {
		t.Errorf("after tapping: settings %v and seeds %v were sent to the form", u.restored, u.seeds)
	}
	if strings.Contains(u.Status.Text, "restored") || strings.Contains(u.Status.Text, "locked") {
		t.Errorf("status %q reports a reuse that did not happen", u.Status.Text)
	}

	// An image with settings enables them again.
	u.gal.SelectEntry("lighthouse.png", nil)
	h.settle()
	if !u.view.ShownOK || u.view.Shown.File != "lighthouse.png" || reuse.Disabled() || seed.Disabled() {
		t.Errorf("image with settings: shown %v, reuse disabled %v, seed disabled %v", u.view.Shown.File, reuse.Disabled(), seed.Disabled())
	}
	test.Tap(seed)
	if len(u.seeds) != 1 || u.seeds[0] != 5 {
		t.Errorf("Reuse seed sent %v, want [5]", u.seeds)
	}
}
