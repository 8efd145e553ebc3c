package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/jobs"
	"kleinbild/engine"
)

// Issue 36 defect 12: Cancel all said "stop the image being made" while the queue was
// paused and nothing ran. It names only the jobs then, and the run too while one runs.
func TestCancelAllNamesTheRunOnlyWhileOneRuns(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	h.settle()
	q := u.run.Queue
	var msg string
	q.Confirm = func(_, m string, _ func()) { msg = m }
	q.Push(&jobs.Job{Req: engine.Request{Settings: engine.Settings{Prompt: "first"}}, Count: 1})
	q.Push(&jobs.Job{Req: engine.Request{Settings: engine.Settings{Prompt: "second"}}, Count: 1})
	q.SetPaused(true)
	test.Tap(q.CancelAll)
	if u.run.Current() != nil || msg != "Remove the 2 queued jobs?" {
		t.Errorf("paused, nothing running: %q", msg)
	}
	q.Clear()
	u.ctl.SetSize(64, 64)
	u.ctl.Prompt.SetText("running")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	u.ctl.Prompt.SetText("queued")
	u.Generate()
	test.Tap(q.CancelAll)
	if !strings.Contains(msg, "queued job and stop the image being made") {
		t.Errorf("while a run goes on: %q", msg)
	}
}
