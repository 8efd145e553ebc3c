package app

import (
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
)

// RestoreSettings fills the controls from an image's metadata: prompt, size, steps,
// guidance, schedule, noise, the seed (locked, so the next run reproduces the image) and the
// reference images that still exist.
func (u *UI) RestoreSettings(m imageio.Metadata) { u.ctl.RestoreSettings(m) }

// ReuseSeed puts seed in the seed field and locks it.
func (u *UI) ReuseSeed(seed uint64) { u.ctl.ReuseSeed(seed) }

// buildFormToggle makes the header's button that hides and shows the form's column.
func (u *UI) buildFormToggle() *widgets.TipButton {
	return u.formTog.Build(u.Tips, func() { u.setFormHidden(!u.formTog.Hidden(), true) })
}

// setFormHidden hides or shows the form's column; remember saves the choice.
func (u *UI) setFormHidden(hidden, remember bool) {
	if !u.formTog.SetHidden(hidden) {
		return
	}
	if c := u.Win.Content(); c != nil {
		c.Refresh()
	}
	if remember && u.Settings.FormHidden != hidden {
		u.Settings.FormHidden = hidden
		u.Remember(u.Settings)
	}
}
