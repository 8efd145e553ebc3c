package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestEscapeInDialogKeepsTheRun: Escape in "Quit Kleinbild?" or "Cancel all" during a run
// closes the dialog as its dismiss button does and never cancels the run or the queue
// (issue 36 major 1: the run stopped while the dialog stayed open, and after "Cancel all"
// the next queued job started at once). Escape with no dialog still cancels the run.
func TestEscapeInDialogKeepsTheRun(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	test.Type(u.ctl.Prompt, "a lighthouse")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	u.ctl.Prompt.SetText("queued")
	test.Tap(u.run.Queue.Add)
	h.settle()
	first := u.run.Current()
	overlay := func() bool { return u.Win.Canvas().Overlays().Top() != nil }
	for _, open := range []struct {
		name string
		show func()
	}{
		{"Quit Kleinbild?", u.requestClose},
		{"Cancel all", func() { test.Tap(u.run.Queue.CancelAll) }},
	} {
		open.show()
		h.settle()
		if !overlay() {
			t.Fatalf("%s: no dialog", open.name)
		}
		u.Win.Canvas().Unfocus()
		key(u.Win.Canvas(), fyne.KeyEscape)
		h.settle()
		if overlay() {
			t.Errorf("%s: Escape left the dialog open", open.name)
		}
		if u.run.Current() != first || first.Cancelling() || len(u.run.Queue.Jobs) != 1 {
			t.Fatalf("%s: Escape cancelled work: the run cancelled %v or ended %v, %d jobs queued, want 1", open.name, first.Cancelling(), u.run.Current() != first, len(u.run.Queue.Jobs))
		}
	}
	key(u.Win.Canvas(), fyne.KeyEscape)
	if !first.Cancelling() {
		t.Error("Escape without a dialog did not cancel the run")
	}
}
