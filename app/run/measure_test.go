package run

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/app/jobs"
	"kleinbild/app/modelui"
	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/weights/golden"
)

// plainGen is a generator that names no device.
type plainGen struct{}

func (plainGen) Generate(context.Context, engine.Request, func(engine.Progress)) (*engine.Result, error) {
	return nil, context.Canceled
}

// reportingGen is a fake generator that names the device it runs on, as the engine's do.
type reportingGen struct{ plainGen }

func (reportingGen) ComputeDevice() (string, gpu.DeviceInfo) {
	return "openblas", gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU}
}

// recorderSetup gives a test its own configuration folder and returns the tiny model and
// the path of the calibration file of reportingGen's device (not written yet).
func recorderSetup(t *testing.T) (engine.Source, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	src, err := engine.OpenFolder(golden.TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	def, err := estimate.DefaultCalibrationPath()
	if err != nil {
		t.Fatal(err)
	}
	return src, filepath.Join(filepath.Dir(def), "calibration-"+modelui.Slug("openblas-Test CPU")+".json")
}

// fakeCalibration stands in for the one-second kernel calibration.
func fakeCalibration() estimate.Calibration {
	return estimate.Calibration{Backend: "test", LinearGFLOPS: 10, AttentionGFLOPS: 10, ConvGFLOPS: 10, Measured: time.Now()}
}

func near(got, want float64) bool { return got > want*0.999999 && got < want*1.000001 }

// A made image's phase times go into the device's calibration file, per model, and then
// set the estimate's time of each phase for that model.
func TestRecordRunIntoTheDeviceCalibration(t *testing.T) {
	src, path := recorderSetup(t)
	g := reportingGen{}
	mdl := modelui.RunModel{Key: "tiny", Src: src}
	j := &jobs.Job{Req: engine.Request{Settings: engine.Settings{Prompt: "a cat", Width: 256, Height: 256}}, Count: 4}
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
	if _, ok := recordRun(plainGen{}, mdl, j, took); ok {
		t.Error("recorded for a generator that names no device")
	}
}

// A measured load goes into the device's calibration file: the bytes read at open (the
// transformer's and the VAE's) over the time it took.
func TestRecordLoadIntoTheDeviceCalibration(t *testing.T) {
	src, path := recorderSetup(t)
	g := reportingGen{}
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
	if _, ok := recordLoad(plainGen{}, mdl, time.Second); ok {
		t.Error("recorded for a generator that names no device")
	}
}
