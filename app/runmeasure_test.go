package app

import (
	"kleinbild/app/modelui"

	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/estimate"
)

// A made image's phase times go into the device's calibration file, per model, and then
// set the estimate's time of each phase for that model.
func TestRecordRunIntoTheDeviceCalibration(t *testing.T) {
	src, path := recorderSetup(t)
	g := reportingGen{newFakeGen()}
	mdl := modelui.RunModel{Key: "tiny", Src: src}
	j := &job{Req: engine.Request{Settings: engine.Settings{Prompt: "a cat", Width: 256, Height: 256}}, Count: 4}
	took := map[engine.Phase]time.Duration{engine.PhaseEncoding: time.Second, engine.PhaseDenoise: 2 * time.Second, engine.PhaseDecoding: 3 * time.Second}
	if _, ok := recordRun(g, mdl, j, took); ok {
		t.Error("recorded without a calibration to compare with")
	}
	if err := fakeCalibration().Save(path); err != nil {
		t.Fatal(err)
	}
	c, ok := recordRun(g, mdl, j, took)
	if !ok {
		t.Fatal("not recorded")
	}
	m, _ := estimate.ForSource(src)
	rep, err := estimate.Estimate(m, estimate.Request{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}, Count: 4}, estimate.Machine{Rates: c})
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.PhaseSeconds; !rep.RunCalibrated || !near(p.Encode, 1) || !near(p.Denoise, 2) || !near(p.Decode, 3) || !near(rep.Seconds, 1+4*5) {
		t.Errorf("after the run: %+v, %v s", p, rep.Seconds)
	}
	if back, err := estimate.LoadCalibration(path); err != nil || len(back.Runs) != 1 {
		t.Errorf("stored %+v, %v", back, err)
	}
	if _, ok := recordRun(newFakeGen(), mdl, j, took); ok {
		t.Error("recorded for a generator that names no device")
	}
}

func near(got, want float64) bool { return got > want*0.999999 && got < want*1.000001 }
