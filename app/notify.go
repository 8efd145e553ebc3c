package app

import (
	"context"
	"errors"
	"fmt"
	"math"

	"fyne.io/fyne/v2"
)

// runNotifier shows a run's progress in the window title ("42% — Kleinbild") and sends a
// system notification when a run ends while the window is in the background. It runs on
// the UI goroutine.
type runNotifier struct {
	win        fyne.Window
	base       string // the window's own title
	shown      string // the title set last
	background bool   // the window has lost the focus (the app's lifecycle says so)
	send       func(*fyne.Notification)
}

// newRunNotifier watches a's foreground state for w (Fyne's desktop driver reports a
// window losing and gaining the focus as the app leaving and entering the foreground).
func newRunNotifier(a fyne.App, w fyne.Window, post func(func())) *runNotifier {
	n := &runNotifier{win: w, base: w.Title(), send: a.SendNotification}
	n.shown = n.base
	a.Lifecycle().SetOnExitedForeground(func() { post(func() { n.background = true }) })
	a.Lifecycle().SetOnEnteredForeground(func() { post(func() { n.background = false }) })
	return n
}

// progressTitle is the window title during a run: the whole job's progress in percent.
func progressTitle(frac float64, base string) string {
	pct := int(math.Floor(min(max(frac, 0), 1) * 100))
	return fmt.Sprintf("%d%% — %s", pct, base)
}

// progress shows the job's progress (0..1) in the title.
func (n *runNotifier) progress(frac float64) { n.setTitle(progressTitle(frac, n.base)) }

// finished puts the title back and, when the window is in the background, sends a
// notification with msg (a run the user cancelled sends none: msg is "").
func (n *runNotifier) finished(msg string) {
	n.setTitle(n.base)
	if n.background && msg != "" {
		n.send(fyne.NewNotification(n.base, msg))
	}
}

func (n *runNotifier) setTitle(t string) {
	if t != n.shown {
		n.shown = t
		n.win.SetTitle(t)
	}
}

// finishedText is the notification of a run that ended: what it made, or why it failed;
// "" for a run the user cancelled.
func finishedText(out runOutcome, count int) string {
	n := len(out.entries)
	switch {
	case errors.Is(out.err, context.Canceled):
		return ""
	case out.err != nil && !out.saved:
		return "Generation failed: " + out.err.Error()
	case n == 1:
		return "Your image is ready: " + out.entry.File
	}
	return fmt.Sprintf("%d of %d images are ready.", n, count)
}
