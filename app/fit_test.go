package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

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
