// Package notify shows a run's progress in the window title and sends a system
// notification when a run ends while the window is in the background.
package notify

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"
)

// Notifier shows a run's progress in the window title ("42% — Kleinbild") and sends a
// system notification when a run ends while the window is in the background. It runs on
// the UI goroutine.
type Notifier struct {
	win   fyne.Window
	base  string // the window's own title
	shown string // the title set last
	// Background is set while the window has lost the focus (the app's lifecycle says so).
	Background bool
	// Send sends a notification (the app's SendNotification; tests replace it).
	Send func(*fyne.Notification)
}

// New watches a's foreground state for w (Fyne's desktop driver reports a
// window losing and gaining the focus as the app leaving and entering the foreground).
func New(a fyne.App, w fyne.Window, post func(func())) *Notifier {
	n := &Notifier{win: w, base: w.Title(), Send: a.SendNotification}
	n.shown = n.base
	a.Lifecycle().SetOnExitedForeground(func() { post(func() { n.Background = true }) })
	a.Lifecycle().SetOnEnteredForeground(func() { post(func() { n.Background = false }) })
	return n
}

// Title is the window title during a run: the whole job's progress in percent.
func Title(frac float64, base string) string {
	pct := int(math.Floor(min(max(frac, 0), 1) * 100))
	return fmt.Sprintf("%d%% — %s", pct, base)
}

// Progress shows the job's progress (0..1) in the title.
func (n *Notifier) Progress(frac float64) { n.setTitle(Title(frac, n.base)) }

// Finished puts the title back and, when the window is in the background, sends a
// notification with msg (a run the user cancelled sends none: msg is "").
func (n *Notifier) Finished(msg string) {
	n.setTitle(n.base)
	if n.Background && msg != "" {
		n.Send(fyne.NewNotification(n.base, msg))
	}
}

func (n *Notifier) setTitle(t string) {
	if t != n.shown {
		n.shown = t
		n.win.SetTitle(t)
	}
}
