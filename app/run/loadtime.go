package run

import (
	"kleinbild/app/modelui"

	"path/filepath"
	"sync"
	"time"

	"kleinbild/estimate"
)

// loadedModel is the model key and device of the open generator, kept apart from
// Runner.genMu (held for the whole of a load) so that the UI goroutine can ask without
// waiting.
type loadedModel struct {
	mu          sync.Mutex
	key, device string
}

// set records the open generator's model and device ("" when none is open).
func (l *loadedModel) set(key, device string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.key, l.device = key, device
}

// ModelLoaded reports whether the generator for the model key on device is open, so that a
// run costs no model load (any goroutine; never waits for a load).
func (rn *Runner) ModelLoaded(key, device string) bool {
	l := &rn.loaded
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.key != "" && l.key == key && l.device == device
}

// loadMeasured is called on the generating goroutine once g was opened for mdl on device
// in d: the weights read at open (the transformer's and the VAE's; the text encoder is
// mapped on first use) over d are folded into the device's calibration file, and the fit
// line learns the rate and that the model is now loaded.
func (rn *Runner) loadMeasured(g modelui.Generator, mdl modelui.RunModel, device string, d time.Duration) {
	rn.loaded.set(mdl.Key, device)
	c, ok := recordLoad(g, mdl, d)
	rn.sh.Post(func() { rn.Fit.LearnLoad(device, c, ok) })
}

// recordLoad stores a measured load in the calibration file of the device g runs on; ok is
// false when nothing was stored (a generator that names no device, a model of unknown
// size, no calibration measured yet).
func recordLoad(g modelui.Generator, mdl modelui.RunModel, d time.Duration) (estimate.Calibration, bool) {
	path, ok := deviceCalibrationFile(g)
	if !ok || mdl.Src == nil {
		return estimate.Calibration{}, false
	}
	m, err := estimate.ForSource(mdl.Src)
	if err != nil || m.TransformerBytes <= 0 || m.VAEBytes <= 0 {
		return estimate.Calibration{}, false
	}
	c, err := estimate.RecordLoad(path, m.TransformerBytes+m.VAEBytes, d)
	return c, err == nil
}

// deviceCalibrationFile is the calibration file of the device g runs on (as
// modelui.CalibrationPath names it); ok is false for a generator that names no device.
func deviceCalibrationFile(g modelui.Generator) (path string, ok bool) {
	r, ok := g.(modelui.DeviceReporter)
	if !ok {
		return "", false
	}
	def, err := estimate.DefaultCalibrationPath()
	if err != nil {
		return "", false
	}
	backend, info := r.ComputeDevice()
	return filepath.Join(filepath.Dir(def), "calibration-"+modelui.Slug(backend+"-"+info.Name)+".json"), true
}
