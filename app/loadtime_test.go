package app

import (
	"kleinbild/app/modelui"

	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
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

	if out := h.generate("a lighthouse"); out.err != nil {
		t.Fatal(out.err)
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
	if j, ok := u.fit.EstimateJob(&job{Req: engine.Request{Settings: engine.Settings{Width: 256, Height: 256}}, Count: 1}); !ok || j.PhaseSeconds.Load != 0 {
		t.Errorf("a queued job on the loaded model: load %v s (%v)", j.PhaseSeconds.Load, ok)
	}

	// Once the model is closed, the next run loads it again.
	u.run.closeGenerator()
	u.fit.Update()
	if !strings.HasSuffix(u.ctl.Fit.Text, ", model load included") {
		t.Errorf("after the model was closed: %q", u.ctl.Fit.Text)
	}
}

// reportingGen is a fake generator that names the device it runs on, as the engine's do.
type reportingGen struct{ *fakeGen }

func (reportingGen) ComputeDevice() (string, gpu.DeviceInfo) {
	return "openblas", gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU}
}

// A measured load goes into the device's calibration file: the bytes read at open (the
// transformer's and the VAE's) over the time it took.
func TestRecordLoadIntoTheDeviceCalibration(t *testing.T) {
	src, path := recorderSetup(t)
	g := reportingGen{newFakeGen()}
	mdl := modelui.RunModel{Key: "tiny", Src: src}
	if _, ok := recordLoad(g, mdl, time.Second); ok {
		t.Error("recorded without a calibration to add to")
	}
	if err := fakeCalibration().Save(path); err != nil {
		t.Fatal(err)
	}
	// The tiny model's open (a few MB) is mostly fixed cost: it measures no read rate
	// (estimate.WithLoad; that a real model's load is stored is TestRecordLoadPersists').
	if c, ok := recordLoad(g, mdl, 100*time.Millisecond); ok {
		t.Errorf("the tiny model's load was recorded as a read rate: %v B/s", c.LoadBytesPerSec)
	}
	back, err := estimate.LoadCalibration(path)
	if err != nil || back.LoadBytesPerSec != 0 || back.LinearGFLOPS != 10 {
		t.Errorf("stored %+v, %v", back, err)
	}
	if _, ok := recordLoad(newFakeGen(), mdl, time.Second); ok {
		t.Error("recorded for a generator that names no device")
	}
}

// recorderSetup gives a test its own configuration folder and returns the tiny model and
// the path of the calibration file of reportingGen's device (not written yet).
func recorderSetup(t *testing.T) (engine.Source, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	src, err := engine.OpenFolder(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	def, err := estimate.DefaultCalibrationPath()
	if err != nil {
		t.Fatal(err)
	}
	return src, filepath.Join(filepath.Dir(def), "calibration-"+modelui.Slug("openblas-Test CPU")+".json")
}

func fakeCalibration() estimate.Calibration {
	c, _ := fakeCalibrate(context.Background(), "")
	return c
}
