package run

import (
	"context"
	"errors"
	"time"

	"kleinbild/app/gallery"
	"kleinbild/app/jobs"
	"kleinbild/app/progress"
	"kleinbild/gpu"
)

// State is one job in progress: its images are made one after another.
type State struct {
	job        *jobs.Job
	cancel     context.CancelFunc
	done       chan struct{}    // closed when the generating goroutine has returned
	outcome    chan Outcome     // receives the result once the UI shows it
	began      time.Time        // when the run started
	start      time.Time        // when the current image was started
	tracker    progress.Tracker // the current image's progress
	index      int              // the image being made, from 0 (UI goroutine)
	entries    []gallery.Entry  // the images saved so far (UI goroutine)
	cancelling bool
	// device is the device ID the run opens the model on; gpuName its backend when that is
	// a GPU ("" for a CPU or when unknown), to tell GPU failures apart.
	device, gpuName string
	// precision is the precision the model runs in on device (modelui.RunPrecision, precision.go).
	precision gpu.Precision
}

// Job is the job being made.
func (r *State) Job() *jobs.Job { return r.job }

// Cancelling reports whether the run was cancelled and is stopping (UI goroutine).
func (r *State) Cancelling() bool { return r.cancelling }

// Outcome receives how the run ended, once the UI shows it; a reader that leaves it for
// others sends it back.
func (r *State) Outcome() chan Outcome { return r.outcome }

// Fraction is how much of the current image is done, from 0 to 1 (UI goroutine).
func (r *State) Fraction() float64 { return r.tracker.Fraction() }

// Status is the progress bar's fraction and the progress line of the run (UI goroutine).
func (r *State) Status() (frac float64, text string) {
	frac, text = r.tracker.Status(time.Since(r.start))
	if r.cancelling {
		text = "Cancelling…"
	}
	return frac, text
}

// Outcome is how a generation ended.
type Outcome struct {
	// Entry is the last image saved and Saved whether the last image made was saved.
	Entry gallery.Entry
	Saved bool
	// Entries are all the images of the run that were saved, in order.
	Entries []gallery.Entry
	Err     error
	// GPUFailed is true when Err came from the GPU the run was on (see modelui.DeviceFailure).
	GPUFailed bool
	// refFailed is true when Err is about a reference image that cannot be read.
	refFailed bool
	// jobFailed is true when Err is about this job's own settings (its size, steps…).
	jobFailed bool
}

// pausesQueue reports whether the run failed in a way the next jobs would too (the model
// cannot be opened, the device failed, memory ran out, the gallery cannot be written),
// rather than because of this job's own references or settings.
func (o Outcome) pausesQueue() bool {
	return o.Err != nil && !o.Saved && !errors.Is(o.Err, context.Canceled) && !o.refFailed && !o.jobFailed
}
