package galleryui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/internal/testfix"
)

// addNew adds an image of prompt to the gallery as a finished run does: the grid refreshes,
// then hears that the file is new.
func addNew(t *testing.T, u *testUI, prompts ...string) {
	t.Helper()
	for _, p := range prompts {
		e, err := u.Gallery.Add(testfix.Pattern(64, 64), imageio.Metadata{Settings: schema.Settings{Prompt: p, Seed: 1, Width: 64, Height: 64}})
		if err != nil {
			t.Fatal(err)
		}
		u.gal.Refresh()
		u.gal.NoteNew(e.File)
	}
}

// Issue 12: when the gallery's search or Favourites filter hides the images a run has just
// made, a line says so, with Clear to show everything; the line goes once they show.
func TestGalleryNoticeForHiddenNewImages(t *testing.T) {
	h := newHarness(t, t.TempDir(), true)
	u := h.ui
	g := &u.gal
	// The new image matches the search: no notice.
	test.Type(g.Search, "fox")
	addNew(t, u, "a red fox")
	h.settle()
	if g.Hidden.Bar.Visible() || len(g.Visible) != 1 {
		t.Fatalf("notice visible %v with %d images shown, want none and 1", g.Hidden.Bar.Visible(), len(g.Visible))
	}
	// Two new images the search hides.
	addNew(t, u, "a lighthouse", "a lighthouse")
	h.settle()
	if !g.Hidden.Bar.Visible() || g.Hidden.Text.Text != "2 new images are hidden by the search." {
		t.Fatalf("notice visible %v: %q", g.Hidden.Bar.Visible(), g.Hidden.Text.Text)
	}
	if len(g.Visible) != 1 {
		t.Errorf("%d images shown, the search should still apply", len(g.Visible))
	}
	test.Tap(findButton(g.Hidden.Bar, "Clear"))
	if g.Search.Text != "" || len(g.Visible) != 3 || g.Hidden.Bar.Visible() {
		t.Errorf("after Clear: search %q, %d images shown, notice visible %v", g.Search.Text, len(g.Visible), g.Hidden.Bar.Visible())
	}
	// The Favourites filter hides every new image; changing the filter so that it shows
	// takes the notice away too.
	test.Tap(g.Favs)
	addNew(t, u, "a boat")
	h.settle()
	if !g.Hidden.Bar.Visible() || !strings.Contains(g.Hidden.Text.Text, "The new image is hidden by the Favourites filter") {
		t.Fatalf("notice visible %v: %q", g.Hidden.Bar.Visible(), g.Hidden.Text.Text)
	}
	test.Tap(g.Favs) // off by hand
	if g.Hidden.Bar.Visible() {
		t.Error("the notice stays although the new image shows")
	}
}
