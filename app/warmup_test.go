package app

import (
	"math"
	"testing"
	"time"
)

// Issue 36 item 9: the first image after the model opens warms up, so its estimate holds a
// prior for it (app/form's TestFirstImageEstimateCoversWarmUp); once a run has loaded the
// model, the fit line counts no warm-up.
func TestLoadedModelEstimateHasNoWarmUp(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.waitFor("the first calibration", 10*time.Second, func() bool { return u.fit.Calib.Backend != "" })
	if out := h.generate("warm now"); out.Err != nil {
		t.Fatal(out.Err)
	}
	warm, _ := u.fit.Estimate()
	if w := warm.PhaseSeconds; w.Load != 0 || w.Denoise <= 0 || math.Abs(warm.Seconds-w.Job(1)) > 1e-9*w.Job(1) {
		t.Errorf("with the model loaded: %.3f s, phases %+v (no warm-up wanted)", warm.Seconds, w)
	}
}
