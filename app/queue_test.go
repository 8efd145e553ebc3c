package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/jobs"
	"kleinbild/app/run"
	"kleinbild/engine"
	"kleinbild/estimate"
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

// startBlockedRun opens the window on the tiny model with a generator that blocks and
// starts a run of prompt from the form: it stays running until cancelled.
func startBlockedRun(t *testing.T, prompt string) (*harness, *fakeGen) {
	t.Helper()
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	test.Type(h.ui.ctl.Prompt, prompt)
	test.Tap(h.ui.ctl.Generate)
	waitStarted(t, h, fake)
	return h, fake
}

// Issue 12: Generate while a run is in progress queues a job with the current form; the
// jobs run in order, a queued one can be taken out with its ✕, and the running one is
// cancelled as before.
func TestQueueRunsJobsInOrder(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	if u.run.Queue.Add.Visible() {
		t.Error("'Add to queue' shows while nothing runs")
	}
	test.Type(u.ctl.Prompt, "first")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	if !u.run.Queue.Add.Visible() || u.run.Queue.Box.Visible() {
		t.Errorf("while running: add button visible %v, queue list visible %v", u.run.Queue.Add.Visible(), u.run.Queue.Box.Visible())
	}

	for _, p := range []string{"second", "third", "fourth"} {
		u.ctl.Prompt.SetText(p)
		if p == "third" {
			u.ctl.Width.SetText("320")
			u.ctl.SetCount(2)
			test.Tap(u.run.Queue.Add)
		} else {
			u.Generate() // the Generate action (Ctrl+Enter) queues while a run is in progress
		}
	}
	if n := len(u.run.Queue.Jobs); n != 3 || !u.run.Queue.Box.Visible() || len(u.run.Queue.Rows) != 3 {
		t.Fatalf("%d jobs queued (%d rows, visible %v), want 3", n, len(u.run.Queue.Rows), u.run.Queue.Box.Visible())
	}
	if j := u.run.Queue.Jobs[1]; j.Req.Prompt != "third" || j.Req.Width != 320 || j.Count != 2 {
		t.Errorf("queued job %+v (count %d), want the form as it was", j.Req, j.Count)
	}
	if !strings.Contains(u.run.Queue.Rows[1].Label.Text, "third") || !strings.Contains(u.run.Queue.Rows[1].Label.Text, "2 images") {
		t.Errorf("queue row %q", u.run.Queue.Rows[1].Label.Text)
	}
	if u.run.Queue.Title.Text != "Queued (3)" {
		t.Errorf("queue title %q", u.run.Queue.Title.Text)
	}

	test.Tap(u.run.Queue.Rows[1].Remove) // take "third" out
	if n := len(u.run.Queue.Jobs); n != 2 || u.run.Queue.Jobs[0].Req.Prompt != "second" || u.run.Queue.Jobs[1].Req.Prompt != "fourth" {
		t.Fatalf("after removing the middle job: %d jobs", n)
	}

	var prompts []string
	for range 3 {
		prompts = append(prompts, fake.lastRequest().Prompt)
		test.Tap(u.ctl.Generate) // Cancel the running job; the next one starts
		if len(prompts) < 3 {
			waitStarted(t, h, fake)
		}
	}
	h.waitFor("the last run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	if got := strings.Join(prompts, ","); got != "first,second,fourth" {
		t.Errorf("jobs ran as %s, want first,second,fourth", got)
	}
	if fake.calls.Load() != 3 || len(u.run.Queue.Jobs) != 0 || u.run.Queue.Box.Visible() || u.run.Queue.Add.Visible() {
		t.Errorf("after the queue: %d calls, %d queued, list visible %v", fake.calls.Load(), len(u.run.Queue.Jobs), u.run.Queue.Box.Visible())
	}
}

// Issue 12: a queued job runs once the running one finishes on its own.
func TestQueueStartsAfterSuccess(t *testing.T) {
	fake := &blockAtSeed{fakeGen: newFakeGen(), block: 7}
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	lockSeed(u, 7)
	test.Type(u.ctl.Prompt, "blocked")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake.fakeGen)
	lockSeed(u, 8)
	u.ctl.Prompt.SetText("after")
	u.Generate()
	lockSeed(u, 9)
	u.ctl.Prompt.SetText("last")
	u.Generate()
	test.Tap(u.ctl.Generate) // cancel the first
	h.waitFor("both queued jobs", 5*time.Second, func() bool { return u.Gallery != nil && u.Gallery.Len() == 2 && u.run.Current() == nil })
	if got := gallerySeeds(t, u); got[0] != 8 || got[1] != 9 {
		t.Errorf("seeds %v, want [8 9]", got)
	}
}

// failAtSeed is a fakeGen that, for the request with seed seed, waits until release is
// closed and then fails with err.
type failAtSeed struct {
	*fakeGen
	seed    uint64
	err     error
	release chan struct{}
}

func (f *failAtSeed) open(_, device string) (Generator, error) {
	_, _ = f.fakeGen.open("", device)
	return f, nil
}

func (f *failAtSeed) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	if req.Seed != f.seed {
		return f.fakeGen.Generate(ctx, req, progress)
	}
	f.calls.Add(1)
	progress(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4})
	f.started <- struct{}{}
	select {
	case <-f.release:
		return nil, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// queueJob queues a job with the form as it stands and seed while a run is in progress.
func queueJob(t *testing.T, u *UI, prompt string, seed uint64) {
	t.Helper()
	lockSeed(u, seed)
	u.ctl.Prompt.SetText(prompt)
	n := len(u.run.Queue.Jobs)
	u.Generate()
	if len(u.run.Queue.Jobs) != n+1 {
		t.Fatalf("%q was not queued (banner %q)", prompt, u.ErrorText())
	}
}

// Issue 12: a failure the next jobs would repeat (here: out of memory) pauses the queue
// instead of failing every job in turn: the jobs stay listed under "Queue paused after an
// error", ✕ still takes one out, and Resume goes on with the rest. (Before, each queued job
// started right after the failure.)
func TestQueuePausesAfterRepeatingFailure(t *testing.T) {
	fake := &failAtSeed{fakeGen: newFakeGen(), seed: 1, err: errors.New("webgpu: out of memory allocating 2 GB"), release: make(chan struct{})}
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	lockSeed(u, 1)
	test.Type(u.ctl.Prompt, "fails")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake.fakeGen)
	queueJob(t, u, "second", 2)
	queueJob(t, u, "third", 3)
	q := u.run.Queue
	if q.Paused || q.PausedRow.Visible() {
		t.Fatal("the queue shows paused before any failure")
	}

	close(fake.release)
	h.waitFor("the run to fail", 5*time.Second, func() bool { return u.run.Current() == nil })
	h.settle()
	if u.run.Current() != nil || fake.calls.Load() != 1 {
		t.Fatalf("after the failure %d runs were started, want only the failed one", fake.calls.Load())
	}
	if !q.Paused || !q.PausedRow.Visible() || !q.Box.Visible() || len(q.Jobs) != 2 || len(q.Rows) != 2 {
		t.Fatalf("paused %v (line visible %v), %d jobs listed, want 2 waiting", q.Paused, q.PausedRow.Visible(), len(q.Rows))
	}
	if findLabel(q.PausedRow, "Queue paused after an error") == nil || q.Resume.Text != "Resume" {
		t.Error("the paused line does not say so or has no Resume button")
	}
	if !strings.Contains(u.ErrorText(), "out of memory") {
		t.Errorf("banner %q", u.ErrorText())
	}

	test.Tap(q.Rows[0].Remove) // ✕ on "second" still works while paused
	if len(q.Jobs) != 1 || q.Jobs[0].Req.Prompt != "third" || !q.Paused {
		t.Fatalf("after ✕: %d jobs, paused %v", len(q.Jobs), q.Paused)
	}
	test.Tap(q.Resume)
	h.waitFor("the resumed job", 5*time.Second, func() bool { return u.run.Current() == nil && u.Gallery.Len() == 1 })
	if got := gallerySeeds(t, u); got[0] != 3 {
		t.Errorf("the resumed queue made seed %d, want 3", got[0])
	}
	if q.Paused || q.Box.Visible() || len(q.Jobs) != 0 {
		t.Errorf("after the queue ran: paused %v, list visible %v, %d jobs", q.Paused, q.Box.Visible(), len(q.Jobs))
	}
}

// Issue 12: a failure of one job's own (a reference that has gone, a size the model does
// not take) fails only that job; the queue goes on without pausing.
func TestQueueGoesOnAfterJobFailure(t *testing.T) {
	fake := &blockAtSeed{fakeGen: newFakeGen(), block: 1}
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	lockSeed(u, 1)
	test.Type(u.ctl.Prompt, "blocked")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake.fakeGen)

	ref := writeTestPNG(t, t.TempDir(), "ref.png", 64, 64, nil)
	u.AddReference(ref)
	if len(u.refs.RefPaths()) != 1 {
		t.Fatalf("reference not added: %q", u.ErrorText())
	}
	queueJob(t, u, "with a reference that goes", 2)
	u.refs.Remove(ref)
	// A job with a size the model does not take (as an old image's settings could give).
	u.run.Queue.Push(&jobs.Job{Req: engine.Request{Settings: engine.Settings{Prompt: "odd size", Width: 100, Height: 64, Seed: 3}}, Count: 1})
	queueJob(t, u, "fine", 4)
	if err := os.Remove(ref); err != nil {
		t.Fatal(err)
	}

	test.Tap(u.ctl.Generate) // cancel the first
	h.waitFor("the queue to run", 5*time.Second, func() bool {
		return u.run.Current() == nil && len(u.run.Queue.Jobs) == 0 && u.Gallery.Len() > 0
	})
	h.settle()
	if got := gallerySeeds(t, u); len(got) != 1 || got[0] != 4 {
		t.Errorf("gallery seeds %v, want only the good job's [4]", got)
	}
	if u.run.Queue.Paused {
		t.Error("a job's own failure paused the queue")
	}
	fake.mu.Lock()
	n := len(fake.reqs)
	fake.mu.Unlock()
	if n != 2 {
		t.Errorf("the generator got %d requests, want 2 (the failed jobs never reach it)", n)
	}
}

// findLabel returns the label with text inside o.
func findLabel(o fyne.CanvasObject, text string) *widget.Label {
	switch v := o.(type) {
	case *widget.Label:
		if v.Text == text {
			return v
		}
	case *fyne.Container:
		for _, c := range v.Objects {
			if l := findLabel(c, text); l != nil {
				return l
			}
		}
	}
	return nil
}

// Issue 12: jobs queued with Generate and "Render larger" are checked against memory
// like Generate's own runs, by the job's own size: one that does not fit asks, and is not
// queued when the user declines. (Before, both queued without asking.)
func TestQueuedJobAsksWhenItDoesNotFit(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	lockSeed(u, 5)
	u.ctl.SetSize(720, 720)
	src := h.generate("a harbour").Entry

	// 1 GiB: the tiny model fits at 64 × 64 (0.7 GB) but not at 1024 × 1024 (1.2 GB).
	u.fit.Machine = func(c estimate.Calibration) estimate.Machine {
		return estimate.Machine{AvailableBytes: 1 << 30, TotalBytes: 1 << 30, Rates: c}
	}
	u.ctl.SetSize(64, 64)
	if rep, ok := u.fit.Estimate(); !ok || rep.Verdict == estimate.DoesNotFit {
		t.Fatalf("64 × 64 should fit in 1 GiB: %v %q", ok, rep.Message)
	}
	fake.block = true
	u.ctl.Prompt.SetText("running")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)
	if u.run.Current() == nil || h.win.Canvas().Overlays().Top() != nil {
		t.Fatal("a run that fits did not start at once")
	}

	// Render larger makes a 1024 × 1024 job, though the form says 64 × 64.
	u.gal.SelectEntry(src.File, nil)
	u.RenderLarger()
	if len(u.run.Queue.Jobs) != 0 {
		t.Fatal("a render-larger job that does not fit was queued without asking")
	}
	h.tapDialogButton("Cancel")
	if len(u.run.Queue.Jobs) != 0 {
		t.Fatal("declined, the job was queued all the same")
	}
	u.RenderLarger()
	h.tapDialogButton("Queue anyway")
	if len(u.run.Queue.Jobs) != 1 || u.run.Queue.Jobs[0].Req.Width != 1024 {
		t.Fatalf("'Queue anyway' queued %d jobs", len(u.run.Queue.Jobs))
	}

	// A job from the form is judged by its own size too.
	u.ctl.SetSize(1024, 1024)
	u.ctl.Prompt.SetText("too big")
	u.Generate()
	h.tapDialogButton("Cancel")
	if len(u.run.Queue.Jobs) != 1 {
		t.Fatalf("declined, %d jobs are queued, want 1", len(u.run.Queue.Jobs))
	}
	u.ctl.SetSize(64, 64)
	u.Generate() // fits: queued without a question
	if len(u.run.Queue.Jobs) != 2 || h.win.Canvas().Overlays().Top() != nil {
		t.Fatalf("a job that fits: %d queued, dialog open %v", len(u.run.Queue.Jobs), h.win.Canvas().Overlays().Top() != nil)
	}
	test.Tap(u.run.Queue.Rows[0].Remove)
	test.Tap(u.run.Queue.Rows[0].Remove)
	u.Cancel()
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
}

// What WhenJobEnds registered (Inpaint's result) is called when a queued job's run ends,
// and not for a job removed from the queue without running (that its entry is forgotten is
// run.TestWhenJobEndsForgetsDroppedJobs).
func TestAfterJobForgetsDroppedJobs(t *testing.T) {
	h, fake := startBlockedRun(t, "first")
	u := h.ui
	for _, p := range []string{"dropped", "kept"} {
		u.ctl.Prompt.SetText(p)
		u.Generate()
	}
	dropped, kept := u.run.Queue.Jobs[0], u.run.Queue.Jobs[1]
	var ended []string
	u.run.WhenJobEnds(dropped, func(run.Outcome) { ended = append(ended, "dropped") })
	u.run.WhenJobEnds(kept, func(run.Outcome) { ended = append(ended, "kept") })
	test.Tap(u.run.Queue.Rows[0].Remove)
	test.Tap(u.ctl.Generate) // cancels "first"; "kept" starts
	waitStarted(t, h, fake)
	test.Tap(u.ctl.Generate) // cancels "kept"
	h.waitFor("the last run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	if strings.Join(ended, ",") != "kept" {
		t.Errorf("called for %v, want kept", ended)
	}
}
