package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// Issue 12: when the gallery's search or Favourites filter hides the images a run has just
// made, a line says so, with Clear to show everything; the line goes once they show.
func TestGalleryNoticeForHiddenNewImages(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	g := &u.gal
	u.ctl.SetSize(64, 64)

	// The new image matches the search: no notice.
	test.Type(g.search, "fox")
	h.generate("a red fox")
	h.settle()
	if g.hidden.bar.Visible() || len(g.visible) != 1 {
		t.Fatalf("notice visible %v with %d images shown, want none and 1", g.hidden.bar.Visible(), len(g.visible))
	}

	// Two new images the search hides.
	u.ctl.SetCount(2)
	h.generate("a lighthouse")
	h.settle()
	if !g.hidden.bar.Visible() || g.hidden.text.Text != "2 new images are hidden by the search." {
		t.Fatalf("notice visible %v: %q", g.hidden.bar.Visible(), g.hidden.text.Text)
	}
	if len(g.visible) != 1 {
		t.Errorf("%d images shown, the search should still apply", len(g.visible))
	}
	test.Tap(findButton(g.hidden.bar, "Clear"))
	if g.search.Text != "" || len(g.visible) != 3 || g.hidden.bar.Visible() {
		t.Errorf("after Clear: search %q, %d images shown, notice visible %v", g.search.Text, len(g.visible), g.hidden.bar.Visible())
	}

	// The Favourites filter hides every new image; changing the filter so that it shows
	// takes the notice away too.
	u.ctl.SetCount(1)
	test.Tap(g.favs)
	h.generate("a boat")
	h.settle()
	if !g.hidden.bar.Visible() || !strings.Contains(g.hidden.text.Text, "The new image is hidden by the Favourites filter") {
		t.Fatalf("notice visible %v: %q", g.hidden.bar.Visible(), g.hidden.text.Text)
	}
	test.Tap(g.favs) // off by hand
	if g.hidden.bar.Visible() {
		t.Error("the notice stays although the new image shows")
	}
}
