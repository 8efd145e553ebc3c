package app

import (
	"math"
	"testing"
	"time"
)

// Issue 36 item 9: the first image after the model opens warms up (its first step took
// 15 s of a 39 s run, each later one 3 s), so its estimate holds a prior for it: the fit line
// and the progress plan of a first image count one more image's denoising and decoding,
// and once the model is loaded neither does.
func TestFirstImageEstimateCoversWarmUp(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.waitFor("the first calibration", 10*time.Second, func() bool { return u.fit.Calib.Backend != "" })
	cold, ok := u.fit.Estimate()
	p := cold.PhaseSeconds
	if !ok || p.Load <= 0 || p.Denoise <= 0 {
		t.Fatalf("no cold estimate with a load: %+v", cold)
	}
	if want := p.Job(1) + p.Denoise + p.Decode; math.Abs(cold.Seconds-want) > 1e-9*want {
		t.Errorf("a cold first image is estimated at %.3f s, want %.3f s with the warm-up", cold.Seconds, want)
	}
	u.ctl.Prompt.SetText("a cold start")
	f, ok := u.ctl.ReadForm()
	if !ok {
		t.Fatal("the form is invalid")
	}
	j := u.run.JobFromForm(f)
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	if plan := u.fit.PhasePlan(j, true); plan.Load < sec(p.Load+p.Denoise+p.Decode)-time.Millisecond {
		t.Errorf("the first image's plan loads in %v, want the warm-up (%.3f s) in it", plan.Load, p.Load+p.Denoise+p.Decode)
	}

	if out := h.generate("warm now"); out.Err != nil {
		t.Fatal(out.Err)
	}
	warm, _ := u.fit.Estimate()
	if w := warm.PhaseSeconds; w.Load != 0 || math.Abs(warm.Seconds-w.Job(1)) > 1e-9*w.Job(1) {
		t.Errorf("with the model loaded: %.3f s, phases %+v (no warm-up wanted)", warm.Seconds, w)
	}
}
