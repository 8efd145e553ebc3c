package app

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/jobs"
	"kleinbild/engine"
)

// A queued job's line shows its size, seeds and count; its Edit puts the job's settings
// back into the form (prompt, size, steps, seed locked, count, adapters at their
// strengths) and takes it out of the queue. An inpainting job's Edit is disabled.
func TestQueueJobOpensIntoForm(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	q := u.run.Queue
	h.addAdapter(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	strength := findShortcutEntry(h.win.Canvas().Content(), "1.00") // the adapter's strength
	strength.SetText("0.5")
	j := u.run.JobFromForm(jobs.Form{Settings: engine.Settings{Prompt: "a lighthouse", Width: 320, Height: 192, Steps: 7, Seed: 41}, SeedGiven: true, Count: 3})
	if len(j.Req.Adapters) != 1 {
		t.Fatalf("the job has %d adapters", len(j.Req.Adapters))
	}
	other := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "other", Width: 256, Height: 256, Seed: 5}}, 1)
	inpaint := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "fix", Image: "in.png", Mask: "m.png", Strength: 1, Seed: 6}}, 1)
	q.Push(other)
	q.Push(j)
	q.Push(inpaint)
	// The prompt, the size and count, and the seeds have lines of their own, so that a long
	// prompt hides none of them.
	if got := q.Rows[1].Label.Text; got != "2. a lighthouse\n320×192 · 3 images\nseeds 41–43" {
		t.Errorf("line %q", got)
	}
	if q.Empty.Visible() {
		t.Error("the empty queue's hint shows under the jobs")
	}
	if got := q.Rows[0].Label.Text; got != "1. other\n256×256 · seed 5" {
		t.Errorf("single job's line %q", got)
	}
	if q.Rows[1].Open.Disabled() || !q.Rows[2].Open.Disabled() {
		t.Errorf("Edit enabled: %v for a job, %v for inpainting", !q.Rows[1].Open.Disabled(), !q.Rows[2].Open.Disabled())
	}

	// The form moves on meanwhile.
	u.ctl.Prompt.SetText("something else")
	u.ctl.SetSize(512, 512)
	u.ctl.SetCount(1)
	findCheck(h.win.Canvas().Content(), "lora_kohya").SetChecked(false)
	strength.SetText("2")

	test.Tap(q.Rows[1].Open)
	if len(q.Jobs) != 2 || q.Jobs[0] != other || q.Jobs[1] != inpaint {
		t.Fatalf("queue after Edit: %d jobs", len(q.Jobs))
	}
	f, ok := u.ctl.ReadForm()
	if !ok || f.Prompt != "a lighthouse" || f.Width != 320 || f.Height != 192 || f.Steps != 7 || f.Seed != 41 || !u.ctl.SeedIsLocked() || f.Count != 3 {
		t.Errorf("form %+v (ok %v, seed locked %v)", f, ok, u.ctl.SeedIsLocked())
	}
	if st := u.adapters.Stack(); len(st) != 1 || st[0].Strength != 0.5 {
		t.Errorf("adapters %+v", st)
	}
	// The inpainting job's button does nothing even if called.
	q.Rows[1].Open.OnTapped()
	if len(q.Jobs) != 2 {
		t.Errorf("the inpainting job left the queue")
	}
	q.Clear()
	if !q.Empty.Visible() {
		t.Error("the empty queue shows no hint")
	}
}

// Issue 35: a job edited back into the form keeps its schedule when it is none of the
// menu's usual ones ("power:1.5" showed, and then ran, the default). (Its menu is app/form's
// TestRestoredRequestKeepsItsSchedule.)
func TestEditedJobKeepsItsSchedule(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	j := jobs.New(engine.Request{Settings: engine.Settings{Prompt: "a dune", Width: 256, Height: 256, Seed: 5, Schedule: "power:1.5"}}, 1)
	u.run.Queue.Push(j)
	test.Tap(u.run.Queue.Rows[0].Open)
	if f, ok := u.ctl.ReadForm(); !ok || f.Schedule != "power:1.5" {
		t.Errorf("form schedule %q (ok %v), want power:1.5", f.Schedule, ok)
	}
}
