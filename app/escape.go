package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// escapeDialog closes the dialog on top of canvas c, if one is open, the way its dismiss
// button does (a confirmation's callback hears "no"), and reports whether there was one.
// Escape then does nothing else: it closes the dialog and never cancels the run behind it
// (issue 36 major 1: Escape in "Quit Kleinbild?", Trash or "Cancel all" stopped the
// generation and left the dialog open). A dialog without a dismiss button (one marked with
// the cancel icon, as Fyne's confirmations have) is hidden.
func escapeDialog(c fyne.Canvas) bool {
	top := c.Overlays().Top()
	if top == nil {
		return false
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
