package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// waitStarted waits until the fake generator has been called once more.
func waitStarted(t *testing.T, h *harness, f *fakeGen) {
	t.Helper()
	h.waitFor("the generator to start", 5*time.Second, func() bool {
		select {
		case <-f.started:
			return true
		default:
			return false
		}
	})
}

// Issue 12: Generate while a run is in progress queues a job with the current form; the
// jobs run in order, a queued one can be taken out with its ✕, and the running one is
// cancelled as before.
func TestQueueRunsJobsInOrder(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	if u.run.queue.add.Visible() {
		t.Error("'Add to queue' shows while nothing runs")
	}
	test.Type(u.ctl.prompt, "first")
	test.Tap(u.ctl.generate)
	waitStarted(t, h, fake)
	if !u.run.queue.add.Visible() || u.run.queue.box.Visible() {
		t.Errorf("while running: add button visible %v, queue list visible %v", u.run.queue.add.Visible(), u.run.queue.box.Visible())
	}

	for _, p := range []string{"second", "third", "fourth"} {
		u.ctl.prompt.SetText(p)
		if p == "third" {
			u.ctl.width.SetText("320")
			u.ctl.setCount(2)
			test.Tap(u.run.queue.add)
		} else {
			u.Generate() // the Generate action (Ctrl+Enter) queues while a run is in progress
		}
	}
	if n := len(u.run.queue.jobs); n != 3 || !u.run.queue.box.Visible() || len(u.run.queue.rows) != 3 {
		t.Fatalf("%d jobs queued (%d rows, visible %v), want 3", n, len(u.run.queue.rows), u.run.queue.box.Visible())
	}
	if j := u.run.queue.jobs[1]; j.req.Prompt != "third" || j.req.WidthPx != 320 || j.count != 2 {
		t.Errorf("queued job %+v (count %d), want the form as it was", j.req, j.count)
	}
	if !strings.Contains(u.run.queue.rows[1].label.Text, "third") || !strings.Contains(u.run.queue.rows[1].label.Text, "2 images") {
		t.Errorf("queue row %q", u.run.queue.rows[1].label.Text)
	}
	if u.run.queue.title.Text != "Queued (3)" {
		t.Errorf("queue title %q", u.run.queue.title.Text)
	}

	test.Tap(u.run.queue.rows[1].remove) // take "third" out
	if n := len(u.run.queue.jobs); n != 2 || u.run.queue.jobs[0].req.Prompt != "second" || u.run.queue.jobs[1].req.Prompt != "fourth" {
		t.Fatalf("after removing the middle job: %d jobs", n)
	}

	var prompts []string
	for range 3 {
		prompts = append(prompts, fake.lastRequest().Prompt)
		test.Tap(u.ctl.generate) // Cancel the running job; the next one starts
		if len(prompts) < 3 {
			waitStarted(t, h, fake)
		}
	}
	h.waitFor("the last run to stop", 5*time.Second, func() bool { return u.run.cur == nil })
	if got := strings.Join(prompts, ","); got != "first,second,fourth" {
		t.Errorf("jobs ran as %s, want first,second,fourth", got)
	}
	if fake.calls.Load() != 3 || len(u.run.queue.jobs) != 0 || u.run.queue.box.Visible() || u.run.queue.add.Visible() {
		t.Errorf("after the queue: %d calls, %d queued, list visible %v", fake.calls.Load(), len(u.run.queue.jobs), u.run.queue.box.Visible())
	}
}

// Issue 12: a queued job runs once the running one finishes on its own.
func TestQueueStartsAfterSuccess(t *testing.T) {
	fake := &blockAtSeed{fakeGen: newFakeGen(), block: 7}
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	lockSeed(u, 7)
	test.Type(u.ctl.prompt, "blocked")
	test.Tap(u.ctl.generate)
	waitStarted(t, h, fake.fakeGen)
	lockSeed(u, 8)
	u.ctl.prompt.SetText("after")
	u.Generate()
	lockSeed(u, 9)
	u.ctl.prompt.SetText("last")
	u.Generate()
	test.Tap(u.ctl.generate) // cancel the first
	h.waitFor("both queued jobs", 5*time.Second, func() bool { return u.gallery != nil && u.gallery.Len() == 2 && u.run.cur == nil })
	if got := gallerySeeds(t, u); got[0] != 8 || got[1] != 9 {
		t.Errorf("seeds %v, want [8 9]", got)
	}
}
