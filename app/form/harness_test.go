package form

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/internal/uitest"
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
// it (uitest.ShownRect).
func shownRect(root, target fyne.CanvasObject) (pos fyne.Position, size fyne.Size, ok bool) {
	return uitest.ShownRect(root, target)
}

// relayout lays out o and everything in it at their current sizes (uitest.Relayout).
func relayout(o fyne.CanvasObject) { uitest.Relayout(o) }

// requireShown fails unless every object is drawn in full inside the window's canvas
// (uitest.RequireShown).
func requireShown(t *testing.T, w fyne.Window, what string, objs ...fyne.CanvasObject) {
	t.Helper()
	uitest.RequireShown(t, w, what, objs...)
}
