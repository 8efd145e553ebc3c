package form

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// The form toggle's tooltips.
const (
	hideFormTip = "Hide the settings (more room for the image)"
	showFormTip = "Show the settings"
)

// Toggle is the header's button that hides and shows the form column, so that the image
// gets the window's width (issue 36 item 17: a 16:9 image at 1366×768 got 595×334, 22 % of
// the window). The window remembers the choice.
type Toggle struct {
	Button *widgets.TipButton
	Column fyne.CanvasObject // the form's column, with its separator; the window sets it
}

// Build makes the toggle's button, which calls pressed.
func (t *Toggle) Build(tips *widgets.TipLayer, pressed func()) *widgets.TipButton {
	t.Button = widgets.NewTipButton(tips, theme.NavigateBackIcon(), hideFormTip, pressed)
	t.Button.Importance = widget.LowImportance
	return t.Button
}

// Hidden reports whether the form's column is hidden.
func (t *Toggle) Hidden() bool { return t.Column != nil && !t.Column.Visible() }

// SetHidden hides or shows the form's column and turns the button to match. It reports
// false, doing nothing, before the button and the column are built.
func (t *Toggle) SetHidden(hidden bool) bool {
	col, b := t.Column, t.Button
	if col == nil || b == nil {
		return false
	}
	if hidden {
		col.Hide()
		b.Icon, b.Tip = theme.NavigateNextIcon(), showFormTip
	} else {
		col.Show()
		b.Icon, b.Tip = theme.NavigateBackIcon(), hideFormTip
	}
	b.Refresh()
	return true
}
