package app

import (
	"fmt"
	"kleinbild/app/jobs"
	"kleinbild/app/run"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
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
		u.setFormHidden(false, true) // the prompt is in the form
		u.Win.Canvas().Focus(u.ctl.Prompt)
		// At the end of the text: a prompt set by the program (restored or reused) has its
		// cursor at the start, where typing went in front of it. Page Down is the entry's own
		// move to the end of its text.
		u.ctl.Prompt.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
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
	}, u.Win)
	d.SetConfirmText("Cancel all")
	d.SetDismissText("Keep them")
	d.Show()
}

// requestClose closes the window, after asking while an image is being made (issue 28
// item 8: closing mid-run quit at once and lost a 96 %-done image). The window's close
// button and Ctrl+Q come here. While the question is open it is the only one (issue 36
// item 8: repeated Ctrl+Q stacked questions); it follows the run's progress and goes when
// nothing runs any more (one outlived the run and still said "78% done").
func (u *UI) requestClose() {
	if u.run.Current() == nil {
		u.closeWindow()
		return
	}
	if u.quit != nil {
		u.quit.refresh(u)
		return
	}
	q := &quitQuestion{msg: widget.NewLabel(""), stop: make(chan struct{})}
	q.msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Quit Kleinbild?", "Quit", "Keep making it", q.msg, func(yes bool) {
		if u.quit == q {
			u.quit = nil
		}
		close(q.stop)
		if yes {
			u.closeWindow()
		}
	}, u.Win)
	q.d = d
	u.quit, u.quitDialog = q, d
	q.refresh(u)
	d.Resize(fyne.NewSize(min(460, u.Win.Canvas().Size().Width), 0))
	d.Show()
	u.BG.Add(1)
	go func() {
		defer u.BG.Done()
		t := time.NewTicker(run.TickInterval)
		defer t.Stop()
		for {
			select {
			case <-q.stop:
				return
			case <-u.Life.Done():
				return
			case <-t.C:
				u.Post(func() { q.refresh(u) })
			}
		}
	}()
}

// quitQuestion is the open "Quit Kleinbild?" question.
type quitQuestion struct {
	d    dialog.Dialog
	msg  *widget.Label
	stop chan struct{} // closed when the question is answered
}

// refresh puts the run's progress in the question, or closes it when nothing runs.
func (q *quitQuestion) refresh(u *UI) {
	if u.quit != q {
		return
	}
	r := u.run.Current()
	if r == nil {
		q.d.Hide() // nothing is lost by quitting now: the next Ctrl+Q closes at once
		return
	}
	msg := "An image is being made. Quit anyway? It is lost; its job is kept in the queue for the next start."
	if f := r.Fraction(); f > 0 {
		msg = fmt.Sprintf("An image is being made (%d%% done). Quit anyway? It is lost; its job is kept in the queue for the next start.", int(f*100))
	}
	q.msg.SetText(msg)
}

// quitRunPhase follows the run's phase in the open quit question. When the run has ended
// it looks once the next queued job has had its chance to start.
func (u *UI) quitRunPhase(p jobs.Phase) {
	if q := u.quit; q != nil {
		if p == jobs.Idle {
			u.Post(func() { q.refresh(u) })
			return
		}
		q.refresh(u)
	}
}
