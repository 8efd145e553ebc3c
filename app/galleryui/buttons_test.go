package galleryui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// unnamedButtons lists the buttons under o, hidden ones too, that have neither text nor
// a tooltip.
func unnamedButtons(o fyne.CanvasObject) []fyne.CanvasObject {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Text == "" && v.Tip == "" {
			return []fyne.CanvasObject{v}
		}
		return nil
	case *widget.Button:
		if v.Text == "" {
			return []fyne.CanvasObject{v}
		}
		return nil
	case *fyne.Container:
		var bad []fyne.CanvasObject
		for _, c := range v.Objects {
			bad = append(bad, unnamedButtons(c)...)
		}
		return bad
	case *container.AppTabs: // its own tab bar (and overflow button) is Fyne's: only the tabs' content
		var bad []fyne.CanvasObject
		for _, it := range v.Items {
			bad = append(bad, unnamedButtons(it.Content)...)
		}
		return bad
	case fyne.Widget:
		var bad []fyne.CanvasObject
		for _, c := range test.WidgetRenderer(v).Objects() {
			bad = append(bad, unnamedButtons(c)...)
		}
		return bad
	}
	return nil
}

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
	for _, b := range unnamedButtons(content) {
		t.Errorf("full-size view: a button with neither text nor a tooltip: %s", fmt.Sprintf("%T at %v", b, b.Position()))
	}
}
