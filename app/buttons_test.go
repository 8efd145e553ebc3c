package app

import (
	"errors"
	"fmt"
	"kleinbild/app/internal/uitest"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Issue 12: every button in the window says what it does, with its text or a tooltip (the
// full-size view's buttons are tested in app/galleryui).
// (Before: the seed, size swap, gallery, undo, banner and reference buttons were bare
// icons.)
func TestEveryButtonIsNamed(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	u.AddReference(writeTestPNG(t, t.TempDir(), "ref.png", 256, 192, nil))
	h.settle()
	if len(u.refs.RefPaths()) != 1 {
		t.Fatalf("references %v", u.refs.RefPaths())
	}
	u.ShowError(errors.New("something went wrong"))
	h.settle()
	if !u.Banner.Box.Visible() {
		t.Fatal("no banner")
	}
	// A queued job (its row has a ✕), with the queue paused (Resume).
	u.ctl.Prompt.SetText("a queued job")
	f, ok := u.ctl.ReadForm()
	if !ok {
		t.Fatal("the form does not read")
	}
	u.run.Queue.Push(u.run.JobFromForm(f))
	u.run.Queue.SetPaused(true)
	for _, b := range uitest.UnnamedButtons(h.win.Canvas().Content()) {
		t.Errorf("main window: a button with neither text nor a tooltip: %s", describe(b))
	}
}

// describe names a button by its icon.
func describe(o fyne.CanvasObject) string {
	if b, ok := o.(*widget.Button); ok && b.Icon != nil {
		return "icon " + b.Icon.Name()
	}
	return fmt.Sprintf("%T at %v", o, o.Position())
}
