package run

import (
	"context"
	"fmt"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/gpu/webgpu"
)

// Tuner tunes the automatic device's GPU kernels before its first use (issue 17):
// backends.DefaultNeedsTuning and backends.DefaultTuned, replaced in tests.
type Tuner struct {
	Needs func() bool
	Tune  func(ctx context.Context, opts backends.TuneOptions) (gpu.Backend, error)
}

// tuneIfNeeded runs the first-use tuning of the automatic device (device "") when it is
// due, showing backends.TuningMessage with its progress; the results go to the tuning
// cache, which the model's own backend reads when it opens. Called from the generating
// goroutine before the model is opened.
func (rn *Runner) tuneIfNeeded(ctx context.Context, r *State, device string) error {
	t := rn.Tuner
	if device != "" || t.Needs == nil || t.Tune == nil || !t.Needs() {
		return nil
	}
	rn.setActivity(r, backends.TuningMessage+"…", 0)
	b, err := t.Tune(ctx, backends.TuneOptions{Progress: func(p webgpu.TuneProgress) {
		done := 0.0
		if p.Total > 0 {
			done = float64(p.Done) / float64(p.Total)
		}
		rn.setActivity(r, fmt.Sprintf("%s: %d of %d kernels…", backends.TuningMessage, p.Done, p.Total), done)
	}})
	if b != nil {
		b.Close()
	}
	if ctx.Err() != nil {
		return context.Canceled
	}
	if err != nil {
		// A failed tuning leaves the defaults: the model still runs, only not tuned.
		rn.setActivity(r, "Loading the model…", 0)
	}
	return nil
}

// setActivity shows what the run does before the engine reports (any goroutine).
func (rn *Runner) setActivity(r *State, text string, done float64) {
	rn.sh.Post(func() {
		if rn.cur != r {
			return
		}
		r.tracker.SetActivity(text, done)
		rn.refreshProgress(r)
	})
}
