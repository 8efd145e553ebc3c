package app

import (
	"kleinbild/app/progress"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// TestEstimateCoversEveryImage: the time shown covers the whole run, every image of
// "Images per run" (the prompt is encoded once). (Before: 9 images were estimated at the
// time of one.)
func TestEstimateCoversEveryImage(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	fit := u.ctl.Fit
	h.waitFor("the fit line with a time", 5*time.Second, func() bool {
		return fit.Visible() && strings.Contains(fit.Text, " · about ")
	})
	one, ok := u.fit.Estimate()
	if !ok || one.Seconds <= 0 {
		t.Fatalf("no time for one image: %+v", one)
	}
	u.ctl.SetCount(9)
	h.waitFor("the fit line for 9 images", 5*time.Second, func() bool { return strings.Contains(fit.Text, "for 9 images") })
	nine, _ := u.fit.Estimate()
	p := nine.PhaseSeconds
	want := p.Load + p.Encode + p.References + 9*(p.Denoise+p.Decode) + progress.WarmupSeconds(p) // the model is loaded once
	if math.Abs(nine.Seconds-want) > 1e-9*want || nine.Seconds < 8*(p.Denoise+p.Decode) {
		t.Errorf("9 images: %.3f s, want %.3f s (one image %.3f s)", nine.Seconds, want, one.Seconds)
	}
}

// Issue 22 item 7: the calibration does not measure beside a generation (on the same cores
// it recorded attention 50× slow, and stored it): a device chosen while a run goes on is
// calibrated once the run has ended.
func TestCalibrationWaitsForTheRun(t *testing.T) {
	fake := newFakeGen()
	fake.block = true
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	h.waitFor("the first calibration", 10*time.Second, func() bool { return u.fit.Calib.Backend != "" })
	test.Type(u.ctl.Prompt, "a run to wait for")
	test.Tap(u.ctl.Generate)
	waitStarted(t, h, fake)

	u.model.SetDeviceChoice("purego") // as the device menu sets it
	u.fit.Update()
	h.settle()
	if u.fit.Device == "purego" {
		t.Fatal("the new device was calibrated while a generation ran")
	}
	test.Tap(u.ctl.Generate) // cancel
	h.waitFor("the calibration after the run", 10*time.Second, func() bool {
		return !u.run.Busy() && u.fit.Device == "purego" && u.fit.Calib.Backend != ""
	})
}
