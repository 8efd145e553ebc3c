package form

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
)

// noModel is a ChosenModel with no model chosen.
type noModel struct{}

func (noModel) ModelDir() string            { return "" }
func (noModel) ModelInfo() engine.ModelInfo { return engine.ModelInfo{} }

// refPaths is a RefList of the paths it holds.
type refPaths []string

func (r *refPaths) RefPaths() []string { return *r }
func (r *refPaths) ReplaceRefs(paths []string) []string {
	*r = paths
	return nil
}

// testControls builds the form alone, with its fit line, in a test window of size: the
// other components are placeholders, the UI goroutine is the test's.
func testControls(t *testing.T, size fyne.Size) (*Controls, *FitLine, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	sh := &shell.Shell{App: a, Win: w, DataDir: t.TempDir(), Post: func(fn func()) { fn() }, Status: widget.NewLabel("")}
	sh.Life, sh.End = context.WithCancel(context.Background())
	t.Cleanup(sh.End)
	sh.Tips = widgets.NewTipLayer(w.Canvas(), sh.Post)
	c := NewControls(sh, Deps{
		OnGenerate: func() {}, OnCancel: func() {}, Busy: func() bool { return false }, EstimateSoon: func() {},
		Model: noModel{}, Refs: &refPaths{},
		RestoreAdapters: func([]imageio.Adapter) <-chan struct{} { return nil },
		Shown:           func() (gallery.Entry, bool) { return gallery.Entry{}, false },
	})
	fit := &FitLine{}
	part := func() fyne.CanvasObject { return widget.NewLabel("a part of another component") }
	box := c.Build(PanelParts{Refs: part, Adapters: part, Scrolled: func(fyne.Scrollable) {},
		QueueAdd: widget.NewButton("Add", nil), Queue: layout.NewSpacer(),
		WrapFit: fit.Wrap})
	w.SetContent(box)
	w.Resize(size)
	return &c, fit, w
}

// shownRect is where target is drawn inside root, clipped by the scroll containers around
// it; ok is false when target is not in root or is hidden.
func shownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
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
		var kids []fyne.CanvasObject
		switch v := o.(type) {
		case *fyne.Container:
			kids = v.Objects
		case fyne.Widget:
			kids = test.WidgetRenderer(v).Objects()
		}
		for _, k := range kids {
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

// relayout lays out o and everything in it at their current sizes, top down, as a real
// window does before drawing when minimum sizes have changed.
func relayout(o fyne.CanvasObject) {
	if !o.Visible() {
		return
	}
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
		kids = v.Objects
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		r.Layout(v.Size())
		kids = r.Objects()
	}
	for _, k := range kids {
		relayout(k)
	}
}

// requireShown fails unless o is drawn in full inside the window's canvas, not clipped by
// a scroll container or the window edge.
func requireShown(t *testing.T, w fyne.Window, what string, o fyne.CanvasObject) {
	t.Helper()
	relayout(w.Canvas().Content())
	win := w.Canvas().Size()
	pos, size, ok := shownRect(w.Canvas().Content(), o)
	want := o.Size()
	full := ok && size.Width >= want.Width-0.5 && size.Height >= want.Height-0.5 && want.Height > 0
	inside := pos.X >= 0 && pos.Y >= 0 && pos.X+size.Width <= win.Width+0.5 && pos.Y+size.Height <= win.Height+0.5
	if !full || !inside {
		t.Errorf("%s (%T) in a %v window: shown at %v size %v of %v (found %v)", what, o, win, pos, size, want, ok)
	}
}
