package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// fourImageRun makes one older image and then a run of four, and returns the run's files.
func fourImageRun(t *testing.T) (*harness, []string) {
	t.Helper()
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	lockSeed(u, 10)
	h.generate("an older image")
	lockSeed(u, 20)
	u.ctl.SetCount(4)
	out := h.generate("four foxes")
	if len(out.Entries) != 4 || len(u.run.Batch.Tiles) != 4 {
		t.Fatalf("%d images, %d tiles (%v)", len(out.Entries), len(u.run.Batch.Tiles), out.Err)
	}
	var files []string
	for _, e := range out.Entries {
		files = append(files, e.File)
	}
	h.win.Resize(fyne.NewSize(1280, 860))
	h.settle()
	return h, files
}

// Issue 36 item 19: a deleted image leaves the run's grid, whose count follows ("4 images"
// stayed, with the deleted image's tile) and comes back with Undo; once all are deleted the
// grid goes.
func TestBatchGridFollowsDeletes(t *testing.T) {
	h, files := fourImageRun(t)
	u := h.ui
	b := &u.run.Batch
	gone := b.Files[1]
	u.gal.SelectEntry(gone, nil)
	u.gal.DeleteShown()
	h.waitFor("the deleted image to leave the grid", 0, func() bool { return len(b.Files) == 3 })
	if slices.Contains(b.Files, gone) || b.Title.Text != "3 images" || len(b.Tiles) != 3 {
		t.Errorf("after deleting %s the grid shows %v, %d tiles, %q", gone, b.Files, len(b.Tiles), b.Title.Text)
	}
	// Undo brings the image back into the gallery, and into the grid at its place. Deleted
	// while the viewer read it, the image leaves no "cannot show … no such file" behind.
	before := slices.Clone(b.Files)
	test.Tap(u.gal.UndoBtn)
	h.waitFor("the restored image to come back to the grid", 0, func() bool { return len(b.Files) == 4 })
	if msg := u.ErrorText(); msg != "" {
		t.Errorf("banner after Undo: %q", msg)
	}
	if b.Files[1] != gone || b.Title.Text != "4 images" || len(b.Tiles) != 4 {
		t.Errorf("after Undo the grid shows %v, %d tiles, %q (before Undo %v)", b.Files, len(b.Tiles), b.Title.Text, before)
	}
	u.gal.SelectEntry(gone, nil)
	u.gal.DeleteShown()
	h.waitFor("the deleted image to leave the grid again", 0, func() bool { return len(b.Files) == 3 })
	var rest []string
	for _, f := range files {
		if f != gone {
			rest = append(rest, f)
		}
	}
	for _, f := range rest {
		e, _ := u.gal.Entry(f)
		u.gal.DeleteEntry(e)
	}
	h.waitFor("the grid to go with its last image", 0, func() bool { return !b.Box.Visible() })
	if len(b.Files) != 0 {
		t.Errorf("the hidden grid still holds %v", b.Files)
	}
}

// Issue 36 item 19: the grid shows the run's images in the gallery's order, so that → goes
// to the tile on the right and ← to the one on the left (the grid was oldest first, the
// gallery newest first: → from the first tile left the run).
func TestBatchGridArrowsGoAlongIt(t *testing.T) {
	h, _ := fourImageRun(t)
	u := h.ui
	b := &u.run.Batch
	c := h.win.Canvas()
	u.gal.SelectEntry(b.Files[0], nil)
	c.Unfocus()
	for i := 1; i < len(b.Files); i++ {
		key(c, fyne.KeyRight)
		if u.view.Shown.File != b.Files[i] {
			t.Fatalf("→ %d times from the first tile shows %s, want the tile %d, %s (grid %v)", i, u.view.Shown.File, i, b.Files[i], b.Files)
		}
	}
	for i := len(b.Files) - 2; i >= 0; i-- {
		key(c, fyne.KeyLeft)
		if u.view.Shown.File != b.Files[i] {
			t.Fatalf("← shows %s, want the tile %d, %s (grid %v)", u.view.Shown.File, i, b.Files[i], b.Files)
		}
	}
	if got := markedTiles(u); len(got) != 1 || got[0] != 0 {
		t.Errorf("tiles %v outlined, want the first", got)
	}
}

// Issue 36 item 10: closing the run's grid gives its band back to the image: the viewer
// takes the whole column again, as before the run.
func TestClosingBatchGridGivesTheBandBack(t *testing.T) {
	h, _ := fourImageRun(t)
	u := h.ui
	col := u.run.Batch.Column
	view := col.Objects[slices.IndexFunc(col.Objects, func(o fyne.CanvasObject) bool { return o != u.run.Batch.Box })]
	withGrid := view.Size().Height
	if withGrid >= col.Size().Height-u.run.Batch.Tiles[0].MinSize().Height {
		t.Fatalf("with the grid shown the viewer is %v of %v px", withGrid, col.Size().Height)
	}
	test.Tap(findTipButton(u.run.Batch.Box, "Close this run's images"))
	if got := view.Size().Height; got != col.Size().Height {
		t.Errorf("after closing the grid the viewer is %v px of the column's %v (was %v with it)", got, col.Size().Height, withGrid)
	}
}
