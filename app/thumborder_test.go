package app

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/app/gallery"
	"kleinbild/app/thumbcache"
)

// Issue 36 item 24: the tiles on screen get their thumbnails first, from the top left, in
// the order one reads them (the thumbnailer serves the newest request first, and the grid
// asked for its cells from the top left, so the bottom right filled first and the tiles one
// looks at stayed blank longest at 2560×1440).
func TestVisibleTilesFillFromTheTopLeft(t *testing.T) {
	h := viewerHarness(t, 40)
	u := h.ui
	g := &u.gal
	h.win.Resize(fyne.NewSize(2544, 1392))
	h.settle()
	th := thumbcache.New(filepath.Join(t.TempDir(), "thumbs"), thumbcache.Side, 1, 8<<20)
	th.Pause() // the requests wait, in the order the worker would take them
	old := u.Thumbs
	u.Thumbs = th
	t.Cleanup(func() { u.Thumbs = old; th.Close() })
	g.SetOrder(gallery.OrderOldest) // every cell shows another image: all ask anew
	h.settle()
	queued := th.Queued()
	cols := g.Grid.ColumnCount()
	if len(queued) < 2*cols || cols < 2 {
		t.Fatalf("%d requests queued for %d columns", len(queued), cols)
	}
	for i := range 2 * cols {
		if want := g.Visible[i].SHA256; queued[i] != want {
			t.Fatalf("request %d taken first is %.8s, want tile %d's %.8s (the worker's order %.8v)", i, queued[i], i, want, queued)
		}
	}
}
