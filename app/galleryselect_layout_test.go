package app

import (
	"kleinbild/app/galleryui"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
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
	galW := u.gal.Root.Size().Width
	u.gal.SetSelecting(true)
	u.gal.SelectAll()
	h.settle()
	relayout(h.win.Canvas().Content())
	if m := windowMin(h.win); m.Width > size.Width || m.Width > minBefore.Width {
		t.Errorf("Select mode: the window's minimum width is %v, was %v (window %v)", m.Width, minBefore.Width, size.Width)
	}
	if w := u.gal.Root.Size().Width; w != galW {
		t.Errorf("Select mode: the gallery is %v wide, was %v", w, galW)
	}
	if s := h.win.Canvas().Size(); s != size {
		t.Errorf("the window is %v, was %v", s, size)
	}
	requireShown(t, h.win, "the selection's buttons", u.gal.DeleteSel)
}

// At 1024×600 (a 1008×552 window) the gallery's sort Select and search field show their
// whole text: sharing a row with the count, the Select read "Ne…" and the search "Search pr".
func TestGalleryHeaderFitsNarrow(t *testing.T) {
	h := viewerHarness(t, 3)
	u := h.ui
	h.win.Resize(fyne.NewSize(1008, 552))
	relayout(h.win.Canvas().Content())
	g := &u.gal
	for _, label := range galleryui.SortLabels {
		probe := widget.NewSelect([]string{label}, nil)
		probe.SetSelected(label)
		if need, got := probe.MinSize().Width, g.SortSel.Size().Width; got < need {
			t.Errorf("the sort Select is %v wide, %q needs %v", got, label, need)
		}
	}
	text := widget.NewLabel(g.Search.PlaceHolder).MinSize().Width
	if got := g.Search.Size().Width; got < text {
		t.Errorf("the search field is %v wide, its placeholder needs %v", got, text)
	}
	requireShown(t, h.win, "the gallery's header", g.SortSel, g.Search, g.Favs, g.Count)
}

// Issue 36 item 20: at 1024×600 (a 1008×552 window) the gallery's count shows whole ("42
// imag…" before), and the second column's ☆ keeps clear of the grid's scroll bar, which
// lies over the right edge of the last column.
func TestGalleryCountAndStarsFitNarrow(t *testing.T) {
	h := viewerHarness(t, 12)
	u := h.ui
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	g := &u.gal
	for _, text := range []string{"42 images", "120 of 1042"} {
		g.Count.SetText(text)
		relayout(h.win.Canvas().Content())
		probe := widget.NewLabel(text)
		probe.SizeName = g.Count.SizeName
		if need, got := probe.MinSize().Width, g.Count.Size().Width; got < need-0.5 {
			t.Errorf("the count is %v wide, %q needs %v", got, text, need)
		}
	}
	requireShown(t, h.win, "the gallery's header", g.Search, g.Favs, g.Count)
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject
	right := abs(g.Grid).X + g.Grid.Size().Width - theme.ScrollBarSize()
	cells := 0
	walkCells(g.Grid, func(c *galleryui.CellView) {
		if c.File == "" {
			return
		}
		cells++
		if end := abs(c.Star).X + c.Star.Size().Width; end > right+0.5 {
			t.Errorf("the ☆ of %s ends at x = %v, under the scroll bar from %v", c.File, end, right)
		}
	})
	if cells < 2 {
		t.Fatalf("%d cells found", cells)
	}
}

// walkCells calls fn with each cell of the gallery grid o.
func walkCells(o fyne.CanvasObject, fn func(*galleryui.CellView)) {
	switch v := o.(type) {
	case *galleryui.CellView:
		fn(v)
	case *fyne.Container:
		for _, k := range v.Objects {
			walkCells(k, fn)
		}
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(v).Objects() {
			walkCells(k, fn)
		}
	}
}

// Issue 36 item 15: Select mode takes no more height than its rows use: its buttons in one
// row left two empty rows (an 80 px band at 1366×768) and at 1024×600 about one row of
// thumbnails showed.
func TestSelectModeLeavesNoBand(t *testing.T) {
	h := viewerHarness(t, 9)
	u := h.ui
	g := &u.gal
	for _, size := range []fyne.Size{fyne.NewSize(1008, 552), fyne.NewSize(1280, 700)} {
		h.win.Resize(size)
		g.SetSelecting(true)
		g.SelectAll()
		h.settle()
		for range 2 { // a real window lays out again when a minimum size changed
			relayout(h.win.Canvas().Content())
			g.Root.Refresh()
		}
		relayout(h.win.Canvas().Content())
		rows := g.SelectBar.Objects[1]
		used := float32(0)
		for _, b := range []fyne.CanvasObject{g.DeleteSel, g.CompareSel} {
			used = max(used, b.Position().Y+b.Size().Height)
		}
		if got := rows.Size().Height; got > used+0.5 {
			t.Errorf("in a %v window the selection's buttons use %v px of the %v they take", size, used, got)
		}
		requireShown(t, h.win, "the selection's buttons", g.DeleteSel, g.CompareSel)
		g.SetSelecting(false)
	}
}
