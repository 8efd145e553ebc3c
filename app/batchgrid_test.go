package app

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
)

// markedTiles returns the indexes of the batch grid's outlined tiles.
func markedTiles(u *UI) []int {
	var on []int
	for i, m := range u.run.Batch.Marks {
		if m.StrokeColor != nil && m.StrokeColor != color.Transparent {
			on = append(on, i)
		}
	}
	return on
}

// Issue 12: the batch grid's outline follows the viewer, not only taps in the grid: a
// gallery pick of an image outside the run clears it, the arrow keys move it, and a
// gallery pick of one of the run's images outlines that tile. (Before, the outline stayed
// on the last tapped tile.)
func TestBatchOutlineFollowsViewer(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	lockSeed(u, 10)
	h.generate("an older image")
	older := u.view.Shown
	lockSeed(u, 20)
	u.ctl.SetCount(3)
	out := h.generate("three foxes")
	if len(out.Entries) != 3 || len(u.run.Batch.Marks) != 3 {
		t.Fatalf("%d entries, %d tiles", len(out.Entries), len(u.run.Batch.Marks))
	}
	check := func(when string, want ...int) {
		t.Helper()
		got := markedTiles(u)
		if len(got) != len(want) || len(want) == 1 && got[0] != want[0] {
			t.Errorf("%s: tiles %v outlined, want %v (viewer shows %s)", when, got, want, u.view.Shown.File)
		}
	}
	check("after the run", 0)

	u.gal.SelectEntry(older.File, nil) // a gallery tap on an image outside the run
	check("an image outside the run")

	u.gal.SelectEntry(out.Entries[2].File, nil) // a gallery tap on one of the run
	check("the run's third image picked in the gallery", 2)

	// The arrows go along the run's grid while it shows the image (issue 36 item 19).
	c := h.win.Canvas()
	c.Unfocus()
	key(c, fyne.KeyLeft)
	if u.view.Shown.File != out.Entries[1].File {
		t.Fatalf("← shows %s, want %s", u.view.Shown.File, out.Entries[1].File)
	}
	check("← from the third image", 1)
	key(c, fyne.KeyEnd)
	check("End (the oldest, outside the run)")
	h.settle()
}

// TestLongRunKeepsWindowSize: a 12-image run shows its grid in one scrolling row, so the
// window's minimum size is what a 2-image run needs. (Before: rows of 8 tiles, and each
// row raised the window's minimum height, pushing Generate off small screens.)
func TestLongRunKeepsWindowSize(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetCount(2)
	h.generate("two foxes")
	h.settle()
	two := windowMin(h.win)
	u.ctl.SetCount(12)
	h.generate("twelve foxes")
	h.settle()
	if !u.run.Batch.Box.Visible() || len(u.run.Batch.Tiles) != 12 {
		t.Fatalf("grid visible %v with %d tiles", u.run.Batch.Box.Visible(), len(u.run.Batch.Tiles))
	}
	twelve := windowMin(h.win)
	if twelve.Height > two.Height || twelve.Width > two.Width {
		t.Errorf("minimum window size after 12 images %v, after 2 images %v", twelve, two)
	}
	// A 1024×600 screen leaves about 1008×552 for the window (see desktop.fitWindow).
	if twelve.Height > 552 || twelve.Width > 1008 {
		t.Errorf("minimum window size after 12 images %v: larger than a 1024×600 screen allows", twelve)
	}
}
