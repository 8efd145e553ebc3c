package galleryui

import (
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// wheelNotch is the distance Fyne's desktop driver reports for one notch of a mouse wheel.
func wheelNotch() float32 {
	if runtime.GOOS == "darwin" {
		return 10
	}
	return 25
}

// galleryRowHeight is the height of one row of the gallery grid.
func galleryRowHeight() float32 {
	return galleryCell + 2*theme.Padding() + theme.Padding() // a padded cell and the gap
}

// wheel scrolls the gallery grid by one row per wheel notch: Fyne's grid scrolls a fixed
// 25 px, which took 50 notches to cross 1 % of a large gallery.
func (g *View) wheel(ev *fyne.ScrollEvent) {
	dy := ev.Scrolled.DY
	if dy == 0 {
		dy = ev.Scrolled.DX
	}
	if dy == 0 {
		return
	}
	g.Grid.ScrollToOffset(g.Grid.GetScrollOffset() - dy/wheelNotch()*galleryRowHeight())
}

// selectQuietly selects item i in the grid without scrolling it: the selection follows the
// viewer (a new image during a run), the view stays where the user left it.
func (g *View) selectQuietly(i int) {
	off := g.Grid.GetScrollOffset()
	g.Grid.Select(i)
	g.Grid.ScrollToOffset(off)
}

// SelectAndScroll shows the gallery image file and scrolls the grid to it: for images the
// user asked for (Undo, a lineage thumbnail); runs and refreshes leave the grid's scroll.
func (g *View) SelectAndScroll(file string) {
	g.SelectEntry(file, nil)
	if i := g.IndexOf(file); i >= 0 {
		g.Grid.ScrollTo(i)
	}
}

// cellShows records that cell c now shows grid item id, and cancels the thumbnail
// requests of cells the grid has put aside (scrolled out of view): the grid keeps such
// cells for reuse without telling, and their requests would make the workers load rows
// nobody sees before the ones on screen (issue 22: 4–11 s after a scrollbar jump).
func (g *View) cellShows(c *CellView, id int) {
	if g.cellIDs == nil {
		g.cellIDs = map[*CellView]int{}
	}
	g.cellIDs[c] = id
	if g.rowHeight == 0 {
		g.rowHeight = c.MinSize().Height + theme.Padding()
	}
	cols := max(1, g.Grid.ColumnCount())
	off := g.Grid.GetScrollOffset()
	// A row of margin on each side: a cell on screen must never lose its request.
	first := (int(off/g.rowHeight) - 1) * cols
	last := (int((off+g.Grid.Size().Height)/g.rowHeight) + 2) * cols
	for other, oid := range g.cellIDs {
		if other != c && (oid < first || oid >= last) && (other.thumb.Pending() || g.pending(other.thumb)) {
			delete(g.pendingThumbs, other.thumb) // not asked for yet (thumborder.go)
			other.thumb.Forget()
			g.cellIDs[other] = -1
		}
	}
}
