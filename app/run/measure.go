package run

import (
	"kleinbild/app/jobs"
	"kleinbild/app/modelui"

	"time"

	"kleinbild/engine"
	"kleinbild/estimate"
)

// runMeasured is called on the generating goroutine after an image of r's job was made on
// g: its phase times (engine.Result.Timings) are folded into the device's calibration
// file, so that the next estimates of this model on this device follow what was measured,
// and the fit line learns them.
func (rn *Runner) runMeasured(g modelui.Generator, mdl modelui.RunModel, r *State, timings map[engine.Phase]time.Duration) {
	c, ok := recordRun(g, mdl, r.job, timings)
	if !ok {
		return
	}
	device := r.device
	rn.sh.Post(func() { rn.Fit.LearnRuns(device, c) })
}

// recordRun stores an image of j, made with mdl in the measured phase times, in the
// calibration file of the device g runs on (estimate.RecordRun); ok is false when nothing
// was stored (a generator that names no device, an unreadable model, no calibration
// measured yet).
func recordRun(g modelui.Generator, mdl modelui.RunModel, j *jobs.Job, timings map[engine.Phase]time.Duration) (estimate.Calibration, bool) {
	path, ok := deviceCalibrationFile(g)
	if !ok || mdl.Src == nil {
		return estimate.Calibration{}, false
	}
	m, err := estimate.ForSource(mdl.Src)
	if err != nil {
		return estimate.Calibration{}, false
	}
	c, err := estimate.RecordRun(path, m, j.EstimateRequest(m.Distilled), timings)
	return c, err == nil
}
