package app

import (
	"fmt"

	"fyne.io/fyne/v2/dialog"
)

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
