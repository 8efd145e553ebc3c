package app

import (
	"testing"

	"fyne.io/fyne/v2"
)

// Issue 28 item 4: Select mode never widens the window (Ctrl+A at 1008 px grew it to
// 1235 px for good) and keeps the viewer's and gallery's widths.
func TestSelectModeKeepsTheWidths(t *testing.T) {
	h := viewerHarness(t, 9)
	u := h.ui
	size := fyne.NewSize(1008, 552)
	h.win.Resize(size)
	relayout(h.win.Canvas().Content())
	minBefore := windowMin(h.win)
	galW := u.gal.root.Size().Width
	u.gal.setSelecting(true)
	u.gal.selectAll()
	h.settle()
	relayout(h.win.Canvas().Content())
	if m := windowMin(h.win); m.Width > size.Width || m.Width > minBefore.Width {
		t.Errorf("Select mode: the window's minimum width is %v, was %v (window %v)", m.Width, minBefore.Width, size.Width)
	}
	if w := u.gal.root.Size().Width; w != galW {
		t.Errorf("Select mode: the gallery is %v wide, was %v", w, galW)
	}
	if s := h.win.Canvas().Size(); s != size {
		t.Errorf("the window is %v, was %v", s, size)
	}
	requireShown(t, h.win, "the selection's buttons", u.gal.deleteSel)
}
