package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
)

// The window's own shortcuts: Ctrl+Q (Cmd+Q) asks to quit, Ctrl+L (Cmd+L) puts the cursor
// in the prompt.
var (
	quitShortcut        = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	focusPromptShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}
	windowShortcuts     = []*desktop.CustomShortcut{quitShortcut, focusPromptShortcut}
)

// windowKey runs the window's shortcut named name and reports whether there is one. The
// canvas runs it when no text field has the focus; the text fields pass it on (passKey),
// so that Ctrl+Q quits also while typing (issue 36 item 5: it did nothing while the
// prompt, size, seed or search field had the focus).
func (u *UI) windowKey(name string) bool {
	switch name {
	case quitShortcut.ShortcutName():
		u.requestClose()
	case focusPromptShortcut.ShortcutName():
		u.win.Canvas().Focus(u.ctl.prompt)
	default:
		return false
	}
	return true
}

// confirmCancelAll asks before Cancel all empties the queue (jobqueue.Queue.Confirm).
func (u *UI) confirmCancelAll(title, msg string, ok func()) {
	d := dialog.NewConfirm(title, msg, func(yes bool) {
		if yes {
			ok()
		}
	}, u.win)
	d.SetConfirmText("Cancel all")
	d.SetDismissText("Keep them")
	d.Show()
}

// requestClose closes the window, after asking while an image is being made (issue 28
// item 8: closing mid-run quit at once and lost a 96 %-done image). The window's close
// button and Ctrl+Q come here.
func (u *UI) requestClose() {
	r := u.run.cur
	if r == nil {
		u.closeWindow()
		return
	}
	msg := "An image is being made. Quit anyway? It is lost; its job is kept in the queue for the next start."
	if f := r.tracker.Fraction(); f > 0 {
		msg = fmt.Sprintf("An image is being made (%d%% done). Quit anyway? It is lost; its job is kept in the queue for the next start.", int(f*100))
	}
	d := dialog.NewConfirm("Quit Kleinbild?", msg, func(yes bool) {
		if yes {
			u.closeWindow()
		}
	}, u.win)
	d.SetConfirmText("Quit")
	d.SetDismissText("Keep making it")
	d.Show()
	u.quitDialog = d
}
