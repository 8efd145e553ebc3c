package uitest

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// ShownRect is where target is drawn inside root, clipped by the scroll containers around
// it; ok is false when target is not in root or is hidden.
func ShownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
	type rect struct{ x0, y0, x1, y1 float32 }
	var walk func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool)
	walk = func(o fyne.CanvasObject, at fyne.Position, clip rect) (rect, bool) {
		if !o.Visible() {
			return rect{}, false
		}
		p := at.Add(o.Position())
		r := rect{p.X, p.Y, p.X + o.Size().Width, p.Y + o.Size().Height}
		if o == target {
			return rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}, true
		}
		if _, isScroll := o.(*container.Scroll); isScroll {
			clip = rect{max(r.x0, clip.x0), max(r.y0, clip.y0), min(r.x1, clip.x1), min(r.y1, clip.y1)}
		}
		for _, k := range Children(o) {
			if got, found := walk(k, p, clip); found {
				return got, true
			}
		}
		return rect{}, false
	}
	big := float32(1e9)
	r, found := walk(root, fyne.Position{}, rect{-big, -big, big, big})
	if !found {
		return fyne.Position{}, fyne.Size{}, false
	}
	return fyne.NewPos(r.x0, r.y0), fyne.NewSize(max(0, r.x1-r.x0), max(0, r.y1-r.y0)), true
}

// Relayout lays out o and everything in it at their current sizes, top down, as a real
// window does before drawing when minimum sizes have changed.
func Relayout(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
	case fyne.Widget:
		test.WidgetRenderer(v).Layout(v.Size())
	}
	for _, k := range Children(o) {
		Relayout(k)
	}
}

// RequireShown fails unless every object is drawn in full inside the window's canvas, not
// clipped by a scroll container or the window edge.
func RequireShown(t testing.TB, w fyne.Window, what string, objs ...fyne.CanvasObject) {
	t.Helper()
	Relayout(w.Canvas().Content())
	win := w.Canvas().Size()
	for i, o := range objs {
		pos, size, ok := ShownRect(w.Canvas().Content(), o)
		want := o.Size()
		full := ok && size.Width >= want.Width-0.5 && size.Height >= want.Height-0.5 && want.Height > 0
		inside := pos.X >= 0 && pos.Y >= 0 && pos.X+size.Width <= win.Width+0.5 && pos.Y+size.Height <= win.Height+0.5
		if !full || !inside {
			t.Errorf("%s (%d, %T) in a %v window: shown at %v size %v of %v (found %v)", what, i, o, win, pos, size, want, ok)
		}
	}
}
