package app

import (
	"kleinbild/app/galleryui"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Issue 36 item 15: at 1024×600 (a 1008×552 window) Select mode shows at least two full
// rows of thumbnails (about one and a half did: the selection's bar stood under the sort
// row, and the Trash button kept its row), and Done gives the sort row and Trash back.
func TestSelectModeShowsTwoRows(t *testing.T) {
	h := viewerHarness(t, 12)
	u := h.ui
	g := &u.gal
	h.win.Resize(fyne.NewSize(1008, 552))
	h.settle()
	relayout(h.win.Canvas().Content())
	twoRows := 2*galleryui.NewCellView(u.Tips, nil, nil, nil).MinSize().Height + theme.Padding()
	g.SetSelecting(true)
	h.settle()
	relayout(h.win.Canvas().Content())
	if got := g.Grid.Size().Height; got < twoRows {
		t.Errorf("selecting, the grid is %v high, two rows need %v", got, twoRows)
	}
	requireShown(t, h.win, "the selection's buttons", g.DeleteSel, g.CompareSel)
	g.SetSelecting(false)
	h.settle()
	requireShown(t, h.win, "the sort row and Trash after Done", g.SortSel, g.TrashBar)
}
