package app

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

// Toggle is the header's button that hides and shows the form column, so that the
// image gets the window's width (issue 36 item 17: a 16:9 image at 1366×768 got 595×334,
// 22 % of the window). The choice is remembered.
type Toggle struct {
	Button *widgets.TipButton
	Column fyne.CanvasObject // the form's column, with its separator
}

// buildFormToggle makes the toggle's button; bind gives it the column once built.
func (u *UI) buildFormToggle() *widgets.TipButton {
	u.formTog.Button = widgets.NewTipButton(u.Tips, theme.NavigateBackIcon(), hideFormTip, func() {
		u.setFormHidden(u.formTog.Column.Visible(), true)
	})
	u.formTog.Button.Importance = widget.LowImportance
	return u.formTog.Button
}

// setFormHidden hides or shows the form's column; remember saves the choice.
func (u *UI) setFormHidden(hidden, remember bool) {
	col, b := u.formTog.Column, u.formTog.Button
	if col == nil || b == nil {
		return
	}
	if hidden {
		col.Hide()
		b.Icon, b.Tip = theme.NavigateNextIcon(), showFormTip
	} else {
		col.Show()
		b.Icon, b.Tip = theme.NavigateBackIcon(), hideFormTip
	}
	b.Refresh()
	if c := u.Win.Content(); c != nil {
		c.Refresh()
	}
	if remember && u.Settings.FormHidden != hidden {
		u.Settings.FormHidden = hidden
		u.Remember(u.Settings)
	}
}
