package galleryui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/widgets"
)

// Issue 12: every button of the full-size view says what it does, with its text or a
// tooltip.
func TestFullSizeViewButtonsAreNamed(t *testing.T) {
	h := viewerHarness(t, 1)
	u := h.ui
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	u.view.openFullView()
	if u.view.full == nil {
		t.Fatal("no full-size view")
	}
	n := 0
	var count func(o fyne.CanvasObject)
	count = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widgets.TipButton, *widget.Button:
			n++
		case *fyne.Container:
			for _, c := range v.Objects {
				count(c)
			}
		}
	}
	content := u.view.full.win.Canvas().Content()
	count(content)
	if n == 0 {
		t.Fatal("the full-size view has no buttons to check")
	}
	for _, b := range uitest.UnnamedButtons(content) {
		t.Errorf("full-size view: a button with neither text nor a tooltip: %s", fmt.Sprintf("%T at %v", b, b.Position()))
	}
}
