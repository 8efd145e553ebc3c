package shell

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// EscapeDialog closes the dialog on top of canvas c, if one is open, the way its dismiss
// button does (a confirmation's callback hears "no"), and reports whether there was one.
// Escape then does nothing else: it closes the dialog and never cancels the run behind it
// (issue 36 major 1: Escape in "Quit Kleinbild?", Trash or "Cancel all" stopped the
// generation and left the dialog open). A dialog without a dismiss button (one marked with
// the cancel icon, as Fyne's confirmations have) is closed as EscapeCloses registered it,
// else hidden.
func (sh *Shell) EscapeDialog(c fyne.Canvas) bool {
	top := c.Overlays().Top()
	if top == nil {
		return false
	}
	if hide, ok := sh.Escapes[top]; ok {
		delete(sh.Escapes, top)
		hide()
		return true
	}
	if b := dismissButton(top); b != nil {
		b.OnTapped()
		return true
	}
	top.Hide()
	return true
}

// dismissButton is the enabled button with the cancel icon in o (a dialog's pop-up and the
// containers in it), if any.
func dismissButton(o fyne.CanvasObject) *widget.Button {
	switch v := o.(type) {
	case *widget.Button:
		if v.Icon != nil && v.Icon.Name() == theme.CancelIcon().Name() && v.OnTapped != nil && !v.Disabled() && v.Visible() {
			return v
		}
	case *widget.PopUp:
		return dismissButton(v.Content)
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := dismissButton(c); b != nil {
				return b
			}
		}
	}
	return nil
}

// EscapeCloses makes Escape close d, just shown in the window, as its own Close button
// does, also while a field, slider, check or list in content (the dialog's content) has the
// focus (issue 36 item 13: Escape did not close the Model dialog or Trash; hiding its
// pop-up skipped what the dialog does when it closes).
func (sh *Shell) EscapeCloses(d dialog.Dialog, content fyne.CanvasObject) {
	widgets.OnEscapeIn(content, d.Hide)
	c := sh.Win.Canvas()
	top := c.Overlays().Top()
	if top == nil {
		return
	}
	open := c.Overlays().List()
	for o := range sh.Escapes {
		if !slices.Contains(open, o) {
			delete(sh.Escapes, o) // closed otherwise
		}
	}
	if sh.Escapes == nil {
		sh.Escapes = map[fyne.CanvasObject]func(){}
	}
	sh.Escapes[top] = d.Hide
}
