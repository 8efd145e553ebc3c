package app

import (
	"cmp"
	"slices"
)

// pendingThumb is a grid cell's thumbnail to ask for at the end of the layout pass.
type pendingThumb struct {
	th       *thumbImage
	id       int
	key, src string
}

// queueThumb asks for the thumbnail of grid cell id (key, from src) once the layout pass
// that shows the cell is over, together with the pass's other cells, the last cell first:
// the thumbnailer serves the most recent request first, so the tiles on screen fill from the
// top left, where one looks, and before any cell asked for in an earlier pass (issue 36
// item 24: at 2560×1440 the tiles stayed blank for seconds, filled from the bottom right).
// A thumbnail in memory, or one the cell already shows or waits for, is shown at once.
func (g *galleryView) queueThumb(th *thumbImage, id int, key, src string) {
	if _, ok := g.sh.thumbs.Cached(key); ok || th.key == key {
		delete(g.pendingThumbs, th)
		g.sh.loadThumb(th, key, src)
		return
	}
	th.forget() // a recycled cell shows nothing of its former image meanwhile
	th.broken.Hide()
	setCanvasImage(th.img, nil)
	if g.pendingThumbs == nil {
		g.pendingThumbs = map[*thumbImage]pendingThumb{}
	}
	if len(g.pendingThumbs) == 0 {
		g.sh.post(g.flushThumbs)
	}
	g.pendingThumbs[th] = pendingThumb{th: th, id: id, key: key, src: src}
}

// flushThumbs asks for the pass's thumbnails, the last cell first (see queueThumb). Cells
// scrolled away meanwhile left the list (cellShows).
func (g *galleryView) flushThumbs() {
	ps := make([]pendingThumb, 0, len(g.pendingThumbs))
	for _, p := range g.pendingThumbs {
		ps = append(ps, p)
	}
	clear(g.pendingThumbs)
	slices.SortFunc(ps, func(a, b pendingThumb) int { return cmp.Compare(b.id, a.id) })
	for _, p := range ps {
		g.sh.loadThumb(p.th, p.key, p.src)
	}
}

// pending reports whether th's thumbnail waits for the end of the layout pass.
func (g *galleryView) pending(th *thumbImage) bool {
	_, ok := g.pendingThumbs[th]
	return ok
}
