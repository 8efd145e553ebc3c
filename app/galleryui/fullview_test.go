package galleryui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/app/widgets"
)

// fitLabel is what the zoom bar of z should show while fitted.
func fitLabel(t *testing.T, z *widgets.ZoomImage) string {
	t.Helper()
	if z.Size().IsZero() {
		t.Fatal("the zoom image has not been laid out")
	}
	p := z.Percent()
	if p <= 0 {
		t.Fatalf("fit percentage %d for an image in %v", p, z.Size())
	}
	return fmt.Sprintf("Fit (%d%%)", p)
}

// Issue 12: the zoom level follows the image area's size. (Before: the full-size view
// said "Fit (0%)", worked out before its window was laid out, and neither label changed
// when its window was resized.)
func TestZoomLevelFollowsSize(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)

	check := func(what string, b *zoomBar) {
		t.Helper()
		if !b.img.Fitted() {
			t.Fatalf("%s: not fitted", what)
		}
		if want := fitLabel(t, b.img); b.Level.Text != want {
			t.Errorf("%s: zoom level %q, want %q (image area %v)", what, b.Level.Text, want, b.img.Size())
		}
	}
	check("viewer", u.view.Zoom)

	u.view.openFullView()
	f := u.view.full
	if f == nil {
		t.Fatal("the full-size view did not open")
	}
	check("full-size view", f.zoom)
	before := f.zoom.Level.Text
	f.win.Resize(fyne.NewSize(500, 400))
	check("resized full-size view", f.zoom)
	if f.zoom.Level.Text == before {
		t.Errorf("full-size view: zoom level %q did not change with the window", before)
	}

	before = u.view.Zoom.Level.Text
	h.win.Resize(fyne.NewSize(1000, 700))
	check("resized viewer", u.view.Zoom)
	if u.view.Zoom.Level.Text == before {
		t.Errorf("viewer: zoom level %q did not change with the window", before)
	}
}
