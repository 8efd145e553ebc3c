package uitest

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// UnnamedButtons lists the buttons under o, hidden ones too, that have neither text nor
// a tooltip.
func UnnamedButtons(o fyne.CanvasObject) []fyne.CanvasObject {
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
			bad = append(bad, UnnamedButtons(c)...)
		}
		return bad
	case *container.AppTabs: // its own tab bar (and overflow button) is Fyne's: only the tabs' content
		var bad []fyne.CanvasObject
		for _, it := range v.Items {
			bad = append(bad, UnnamedButtons(it.Content)...)
		}
		return bad
	case fyne.Widget:
		var bad []fyne.CanvasObject
		for _, c := range test.WidgetRenderer(v).Objects() {
			bad = append(bad, UnnamedButtons(c)...)
		}
		return bad
	}
	return nil
}

// Escapers are the focusable widgets under o (pop-ups, containers and scrolls) that close
// their dialog on Escape.
func Escapers(o fyne.CanvasObject) []fyne.Focusable {
	var out []fyne.Focusable
	switch v := o.(type) {
	case widgets.Escaper:
		if f, ok := o.(fyne.Focusable); ok {
			out = append(out, f)
		}
	case *widget.PopUp:
		out = Escapers(v.Content)
	case *container.Scroll:
		out = Escapers(v.Content)
	case *fyne.Container:
		for _, c := range v.Objects {
			out = append(out, Escapers(c)...)
		}
	}
	return out
}
