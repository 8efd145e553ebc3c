package app

import (
	"strings"
	"testing"
	"time"

	"kleinbild/app/jobs"
	"kleinbild/engine"
)

// Issue 22, item 7: the fit line's time includes loading the model until it is loaded; a
// model kept loaded between runs costs nothing.
func TestFitLineIncludesTheModelLoadOnlyBeforeItIsLoaded(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	h.waitFor("a time on the fit line", 10*time.Second, func() bool {
		return u.ctl.Fit.Visible() && strings.Contains(u.ctl.Fit.Text, " · about ")
	})
	cold := u.ctl.Fit.Text
	if !strings.HasSuffix(cold, ", model load included") {
		t.Errorf("before the first run: %q", cold)
	}
	rep, ok := u.fit.Estimate()
	if !ok || rep.PhaseSeconds.Load <= 0 || rep.Seconds <= rep.PhaseSeconds.Load {
		t.Fatalf("estimate before the first run: load %v s of %v s (%v)", rep.PhaseSeconds.Load, rep.Seconds, ok)
	}
	coldSeconds := rep.Seconds

	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	h.waitFor("the load to leave the fit line", 10*time.Second, func() bool {
		return !strings.Contains(u.ctl.Fit.Text, "model load")
	})
	if !strings.Contains(u.ctl.Fit.Text, " · about ") {
		t.Errorf("after the first run: %q", u.ctl.Fit.Text)
	}
	rep, _ = u.fit.Estimate()
	if rep.PhaseSeconds.Load != 0 || rep.Seconds >= coldSeconds {
		t.Errorf("loaded model: load %v s, total %v s (was %v s)", rep.PhaseSeconds.Load, rep.Seconds, coldSeconds)
	}
	if j, ok := u.fit.EstimateJob(&jobs.Job{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}, Count: 1}); !ok || j.PhaseSeconds.Load != 0 {
		t.Errorf("a queued job on the loaded model: load %v s (%v)", j.PhaseSeconds.Load, ok)
	}

	// Once the model is closed, the next run loads it again.
	u.run.CloseGenerator()
	u.fit.Update()
	if !strings.HasSuffix(u.ctl.Fit.Text, ", model load included") {
		t.Errorf("after the model was closed: %q", u.ctl.Fit.Text)
	}
}
