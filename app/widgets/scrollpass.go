package widgets

import (
	"image/color"
	"reflect"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// scrollCatcher is a transparent object laid over a widget that takes only the mouse
// wheel: Fyne gives a wheel event to the deepest scrollable object under the pointer,
// which inside an entry is the entry's own scroller, so without it the wheel stops
// scrolling the form whenever the pointer passes over a field. It takes no taps, hovers
// or drags, so those still reach the widget under it.
type scrollCatcher struct {
	canvas.Rectangle
	onScroll func(*fyne.ScrollEvent)
}

func newScrollCatcher(onScroll func(*fyne.ScrollEvent)) *scrollCatcher {
	c := &scrollCatcher{onScroll: onScroll}
	c.FillColor = color.Transparent
	return c
}

// Scrolled implements fyne.Scrollable.
func (c *scrollCatcher) Scrolled(ev *fyne.ScrollEvent) { c.onScroll(ev) }

// passRenderer is a widget's renderer with a scrollCatcher laid over all of it.
type passRenderer struct {
	fyne.WidgetRenderer
	catcher *scrollCatcher
}

func (r *passRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	r.catcher.Resize(size)
	r.catcher.Move(fyne.Position{})
}

func (r *passRenderer) Objects() []fyne.CanvasObject {
	return append(r.WidgetRenderer.Objects(), r.catcher)
}

// innerScrollable is the first scrollable object among the renderer's own (the entry's
// scroller), or nil.
func (r *passRenderer) innerScrollable() fyne.Scrollable {
	for _, o := range r.WidgetRenderer.Objects() {
		if s, ok := o.(fyne.Scrollable); ok && o.Visible() {
			return s
		}
	}
	return nil
}

// scrollMoves passes ev to s and reports whether s scrolled. It reads the scroller's
// Offset field (Fyne's internal scroller has one); when it cannot, it reports true, so
// the scroller keeps the wheel as it did before.
func scrollMoves(s fyne.Scrollable, ev *fyne.ScrollEvent) bool {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		s.Scrolled(ev)
		return true
	}
	f := v.Elem().FieldByName("Offset")
	if !f.IsValid() || f.Type() != reflect.TypeFor[fyne.Position]() {
		s.Scrolled(ev)
		return true
	}
	before := f.Interface().(fyne.Position)
	s.Scrolled(ev)
	return f.Interface().(fyne.Position) != before
}

// NewWheelLayer returns a transparent object that, laid over other objects (last in a
// stack), takes the mouse wheel over them and gives it to onScroll, while taps, hovers and
// drags still reach what is under it.
func NewWheelLayer(onScroll func(*fyne.ScrollEvent)) fyne.CanvasObject {
	return newScrollCatcher(onScroll)
}
