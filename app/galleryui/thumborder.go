package galleryui

import (
	"cmp"
	"slices"

	"kleinbild/app/shell"
)

// pendingThumb is a grid cell's thumbnail to ask for at the end of the layout pass.
type pendingThumb struct {
	th       *shell.ThumbImage
	id       int
	key, src string
}

// queueThumb asks for the thumbnail of grid cell id (key, from src) once the layout pass
// that shows the cell is over, together with the pass's other cells, the last cell first:
// the thumbnailer serves the most recent request first, so the tiles on screen fill from the
// top left, where one looks, and before any cell asked for in an earlier pass (issue 36
// item 24: at 2560×1440 the tiles stayed blank for seconds, filled from the bottom right).
// A thumbnail in memory, or one the cell already shows or waits for, is shown at once.
func (g *View) queueThumb(th *shell.ThumbImage, id int, key, src string) {
	if _, ok := g.sh.Thumbs.Cached(key); ok || th.Key == key {
		delete(g.pendingThumbs, th)
		g.sh.LoadThumb(th, key, src)
		return
	}
	th.Clear() // a recycled cell shows nothing of its former image meanwhile
	if g.pendingThumbs == nil {
		g.pendingThumbs = map[*shell.ThumbImage]pendingThumb{}
	}
	if len(g.pendingThumbs) == 0 {
		g.sh.Post(g.flushThumbs)
	}
	g.pendingThumbs[th] = pendingThumb{th: th, id: id, key: key, src: src}
}

// flushThumbs asks for the pass's thumbnails, the last cell first (see queueThumb). Cells
// scrolled away meanwhile left the list (cellShows).
func (g *View) flushThumbs() {
	ps := make([]pendingThumb, 0, len(g.pendingThumbs))
	for _, p := range g.pendingThumbs {
		ps = append(ps, p)
	}
	clear(g.pendingThumbs)
	slices.SortFunc(ps, func(a, b pendingThumb) int { return cmp.Compare(b.id, a.id) })
	for _, p := range ps {
		g.sh.LoadThumb(p.th, p.key, p.src)
	}
}

// pending reports whether th's thumbnail waits for the end of the layout pass.
func (g *View) pending(th *shell.ThumbImage) bool {
	_, ok := g.pendingThumbs[th]
	return ok
}
