package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/jobqueue"
	"kleinbild/app/jobs"
)

func queuePrompts(q *jobqueue.Queue) []string {
	var out []string
	for _, j := range q.Jobs {
		out = append(out, j.Req.Prompt)
	}
	return out
}

// TestQueueReorderSurviveRestartCancelAll: queued jobs move up and down with their
// arrows; quitting during a run keeps the running job and the queue in queue.json, and
// the next start brings them back paused, in order; Cancel all empties the queue and
// cancels the running job, and the emptied queue is what is saved.
func TestQueueReorderSurviveRestartCancelAll(t *testing.T) {
	data, model := t.TempDir(), tinyModel(t)
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, data, model, fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.settle() // the saved queue (none) has been read
	u.ctl.Prompt.SetText("first")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	for _, p := range []string{"second", "third", "fourth"} {
		u.ctl.Prompt.SetText(p)
		u.Generate()
	}
	q := u.run.Queue
	if len(q.Rows) != 3 || !q.Rows[0].Up.Disabled() || q.Rows[0].Down.Disabled() || !q.Rows[2].Down.Disabled() {
		t.Fatalf("rows %d: the first cannot move down or the last can", len(q.Rows))
	}
	test.Tap(q.Rows[0].Down) // second ↓: third, second, fourth
	test.Tap(q.Rows[2].Up)   // fourth ↑: third, fourth, second
	if got, want := queuePrompts(q), []string{"third", "fourth", "second"}; !slices.Equal(got, want) {
		t.Fatalf("after ↓ and ↑: %q, want %q", got, want)
	}
	h.settle()
	h.close() // quit while "first" runs

	stored, _, err := jobs.LoadQueue(filepath.Join(data, "queue.json"))
	if err != nil || len(stored) != 4 || stored[0].Job.Req.Prompt != "first" {
		t.Fatalf("queue.json after quitting: %d jobs, error %v", len(stored), err)
	}

	fake2 := newFakeGen()
	fake2.block = true
	h2 := newHarness(t, data, model, fake2.open)
	u2 := h2.ui
	q2 := u2.run.Queue
	h2.waitFor("the saved queue", 5*time.Second, func() bool { return len(q2.Jobs) == 4 })
	// The paused row's text is app/run's TestRestoredQueueIsPaused.
	if got, want := queuePrompts(q2), []string{"first", "third", "fourth", "second"}; !slices.Equal(got, want) ||
		!q2.Paused || u2.run.Current() != nil {
		t.Fatalf("restored queue %q (want %q), paused %v %q, running %v", got, want, q2.Paused, q2.PausedText.Text, u2.run.Current() != nil)
	}
	test.Tap(q2.Resume)
	waitStarted(t, h2, fake2)
	if u2.run.Current() == nil || u2.run.Current().Job().Req.Prompt != "first" || len(q2.Jobs) != 3 {
		t.Fatalf("after Resume: running %v, %d queued", u2.run.Current() != nil, len(q2.Jobs))
	}
	test.Tap(q2.CancelAll)
	h2.tapDialogButton("Cancel all") // it asks first
	h2.waitFor("the run to end", 5*time.Second, func() bool { return u2.run.Current() == nil })
	if len(q2.Jobs) != 0 || q2.Box.Visible() {
		t.Fatalf("after Cancel all: %d queued", len(q2.Jobs))
	}
	h2.settle()
	h2.close()
	if stored, _, err := jobs.LoadQueue(filepath.Join(data, "queue.json")); err != nil || len(stored) != 0 {
		t.Fatalf("queue.json after Cancel all: %d jobs, error %v", len(stored), err)
	}
}

// TestQueueKeptWhenUnreadable: a queue.json the app cannot read (a newer format) is kept
// aside as queue.json.unreadable with a banner saying so, and a job whose adapter file is
// missing is kept, marked, and saved again (issue 30 item 7: both were dropped for good).
func TestQueueKeptWhenUnreadable(t *testing.T) {
	data := t.TempDir()
	newer := `{"format":2,"jobs":[{"prompt":"later","seed":1,"count":1}]}`
	os.WriteFile(filepath.Join(data, "queue.json"), []byte(newer), 0o644)
	h := newHarness(t, data, "", nil)
	h.waitFor("the banner", 5*time.Second, func() bool { return strings.Contains(h.ui.ErrorText(), "queue.json.unreadable") })
	h.settle()
	h.close()
	if kept, _ := os.ReadFile(filepath.Join(data, "queue.json.unreadable")); string(kept) != newer {
		t.Errorf("kept aside: %q", kept)
	}

	usb := filepath.Join(t.TempDir(), "usb", "style.safetensors")
	job := `{"format":1,"jobs":[{"prompt":"with style","width":256,"height":256,"seed":1,"count":1,"adapters":[{"path":"` + usb + `","strength":0.5}]}]}`
	os.WriteFile(filepath.Join(data, "queue.json"), []byte(job), 0o644)
	h2 := newHarness(t, data, "", nil)
	q := h2.ui.run.Queue
	h2.waitFor("the saved job", 5*time.Second, func() bool { return len(q.Jobs) == 1 })
	if !strings.Contains(q.Rows[0].Label.Text, "adapter missing") || !strings.Contains(h2.ui.ErrorText(), "style.safetensors") {
		t.Errorf("row %q, banner %q", q.Rows[0].Label.Text, h2.ui.ErrorText())
	}
	q.Changed(q.Jobs) // as any change of the queue does
	h2.settle()
	h2.close()
	stored, _, err := jobs.LoadQueue(filepath.Join(data, "queue.json"))
	if err != nil || len(stored) != 1 || len(stored[0].Adapters) != 1 || stored[0].Adapters[0].Path != usb {
		t.Fatalf("queue.json after the session: %+v, %v", stored, err)
	}
}
