package uitest

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// Children are what o holds: a container's objects or a widget's rendered objects.
func Children(o fyne.CanvasObject) []fyne.CanvasObject {
	switch v := o.(type) {
	case *fyne.Container:
		return v.Objects
	case fyne.Widget:
		return test.WidgetRenderer(v).Objects()
	}
	return nil
}

// First returns the first T inside o (o included, depth first, in order) that ok accepts,
// or T's zero value. A T is not looked into: what it holds is not searched.
func First[T fyne.CanvasObject](o fyne.CanvasObject, ok func(T) bool) T {
	v, _ := first(o, ok)
	return v
}

func first[T fyne.CanvasObject](o fyne.CanvasObject, ok func(T) bool) (T, bool) {
	if v, is := o.(T); is {
		if ok(v) {
			return v, true
		}
		var none T
		return none, false
	}
	for _, c := range Children(o) {
		if v, found := first(c, ok); found {
			return v, true
		}
	}
	var none T
	return none, false
}

// FindButton returns the button labelled text inside o (including widget internals); an
// icon button (widgets.TipButton) is named by its tooltip or its text.
func FindButton(o fyne.CanvasObject, text string) *widget.Button {
	switch v := o.(type) {
	case *widgets.TipButton:
		if v.Tip == text || (v.Text != "" && v.Text == text) {
			return &v.Button
		}
		return nil
	case *widget.Button:
		if v.Text == text {
			return v
		}
		return nil
	}
	for _, c := range Children(o) {
		if b := FindButton(c, text); b != nil {
			return b
		}
	}
	return nil
}

// FindTipButton returns the icon button with the tooltip tip inside o, or nil.
func FindTipButton(o fyne.CanvasObject, tip string) *widgets.TipButton {
	return First(o, func(b *widgets.TipButton) bool { return b.Tip == tip })
}

// FindRichText returns the first RichText inside o whose text contains s.
func FindRichText(o fyne.CanvasObject, s string) *widget.RichText {
	return First(o, func(r *widget.RichText) bool { return strings.Contains(r.String(), s) })
}

// FindEntry returns the entry showing text inside o (a chooser's path or name), or nil.
func FindEntry(o fyne.CanvasObject, text string) *widgets.EscapeEntry {
	return First(o, func(e *widgets.EscapeEntry) bool { return e.Text == text })
}

// FindCheck returns the check box whose label starts with prefix inside o, or nil.
func FindCheck(o fyne.CanvasObject, prefix string) *widget.Check {
	return First(o, func(c *widget.Check) bool { return strings.HasPrefix(c.Text, prefix) })
}

// FindList returns the first list inside o, or nil.
func FindList(o fyne.CanvasObject) *widget.List {
	return First(o, func(*widget.List) bool { return true })
}

// FindSelect returns the first select inside o, or nil.
func FindSelect(o fyne.CanvasObject) *widget.Select {
	return First(o, func(*widget.Select) bool { return true })
}

// LabelTexts collects the texts of the labels and rich texts inside o, in order.
func LabelTexts(o fyne.CanvasObject) []string {
	switch v := o.(type) {
	case *widget.Label:
		return []string{v.Text}
	case *widget.RichText:
		return []string{v.String()}
	}
	var out []string
	for _, c := range Children(o) {
		out = append(out, LabelTexts(c)...)
	}
	return out
}
