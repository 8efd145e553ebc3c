package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestProgressInTitleAndNotification: during a run the window title shows the progress
// ("N% — Kleinbild") and goes back after it; a run that ends while the window is in the
// background sends a notification naming the image, one in the foreground or cancelled
// sends none.
func TestProgressInTitleAndNotification(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	base := h.win.Title()
	var sent []*fyne.Notification
	u.run.Notify.Send = func(n *fyne.Notification) { sent = append(sent, n) }

	fake.block = true
	u.ctl.Prompt.SetText("a slow one")
	test.Tap(u.ctl.Generate)
	<-fake.started
	h.waitFor("the progress in the title", 10*time.Second, func() bool {
		return strings.HasSuffix(h.win.Title(), "% — "+base) && h.win.Title() != "0% — "+base
	})
	u.run.Notify.Background = true
	u.Cancel()
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.Current() == nil })
	if h.win.Title() != base || len(sent) != 0 {
		t.Fatalf("after a cancel: title %q, notifications %d", h.win.Title(), len(sent))
	}

	fake.block = false
	out := h.generate("a lighthouse")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if len(sent) != 1 || !strings.Contains(sent[0].Content, out.Entry.File) || h.win.Title() != base {
		t.Fatalf("a run in the background: notifications %v, title %q", sent, h.win.Title())
	}

	u.run.Notify.Background = false
	u.run.Notify.Send = h.ui.App.SendNotification
	test.AssertNotificationSent(t, nil, func() { h.generate("in the foreground") })
}
