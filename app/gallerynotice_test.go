package app

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// Issue 12: when the gallery's search hides the images a run has just made, a line says so
// (its Clear and the Favourites filter are tested in app/galleryui).
func TestGalleryNoticeForHiddenNewImages(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	g := &u.gal
	u.ctl.SetSize(64, 64)

	// The new image matches the search: no notice.
	test.Type(g.Search, "fox")
	h.generate("a red fox")
	h.settle()
	if g.Hidden.Bar.Visible() || len(g.Visible) != 1 {
		t.Fatalf("notice visible %v with %d images shown, want none and 1", g.Hidden.Bar.Visible(), len(g.Visible))
	}

	// Two new images the search hides.
	u.ctl.SetCount(2)
	h.generate("a lighthouse")
	h.settle()
	if !g.Hidden.Bar.Visible() || g.Hidden.Text.Text != "2 new images are hidden by the search." {
		t.Fatalf("notice visible %v: %q", g.Hidden.Bar.Visible(), g.Hidden.Text.Text)
	}
	if len(g.Visible) != 1 {
		t.Errorf("%d images shown, the search should still apply", len(g.Visible))
	}
}
