package app

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// entryWithText reports whether o holds an entry showing text.
func entryWithText(o fyne.CanvasObject, text string) bool {
	switch v := o.(type) {
	case *widget.Entry:
		return v.Text == text
	case *widgets.EscapeEntry: // the chooser's path and name fields
		return v.Text == text
	case *fyne.Container:
		for _, c := range v.Objects {
			if entryWithText(c, text) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if entryWithText(c, text) {
				return true
			}
		}
	}
	return false
}

// The first Add… opens in the user's pictures folder (not the model folder), shows it as
// a path that can be edited, and logs no errors (Fyne's dialog logged "Getting favorite
// locations" failures).
func TestAddReferenceStartsInPictures(t *testing.T) {
	_, pictures := fakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	add := findButton(h.win.Canvas().Content(), "Add…")
	if add == nil {
		t.Fatal("no Add… button")
	}
	test.Tap(add)
	h.settle()
	top := h.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Add… opened nothing")
	}
	if !entryWithText(top, pictures) {
		t.Errorf("the file chooser does not show %s as a path to edit", pictures)
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}
}

// Browse… in the model settings opens Kleinbild's chooser beside the current model folder,
// with no errors logged. (Before: Fyne's folder dialog, which logged "Getting favorite
// locations" and had no path to type.) The chooser itself is tested in package chooser.
func TestBrowseModelFolder(t *testing.T) {
	fakeHome(t)
	var logged bytes.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	model := tinyModel(t)
	h := newHarness(t, t.TempDir(), model, newFakeGen().open)
	h.ui.ShowModelDialog()
	h.settle()
	test.Tap(findButton(h.win.Canvas().Overlays().Top(), "Browse…"))
	h.settle()
	top := h.win.Canvas().Overlays().Top()
	if !entryWithText(top, filepath.Dir(model)) {
		t.Fatalf("the folder chooser does not show %s as a path to edit", filepath.Dir(model))
	}
	if strings.Contains(logged.String(), "favorite") {
		t.Errorf("logged: %s", logged.String())
	}
}
