package backends

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// TuneOptions configure Tune and DefaultTuned: webgpu.TuneOptions without the CPU
// comparison, which Tune supplies.
type TuneOptions = webgpu.TuneOptions

// EnvNoTune names the environment variable that, set to 1, makes DefaultTuned behave as
// Default (no tuning on first use).
const EnvNoTune = "KLEINBILD_NO_TUNE"

// Tune tunes the WebGPU backend b (see webgpu.Backend.Tune) and measures the best CPU
// backend (DefaultCPU) on the same matrix product, so that the default-device rule
// (gpuFaster) can compare the two. b must be a *webgpu.Backend.
func Tune(ctx context.Context, b gpu.Backend, opts TuneOptions) (*webgpu.TuneResult, error) {
	w, ok := b.(*webgpu.Backend)
	if !ok {
		return nil, fmt.Errorf("backends: tuning needs a WebGPU device, not %s", b.Name())
	}
	if opts.CPU == nil {
		opts.CPU = measureCPU
	}
	return w.Tune(ctx, opts)
}

// measureCPU times the workload on DefaultCPU (a warm-up and up to 3 runs, at most about
// 10 s) and returns its rate.
func measureCPU(ctx context.Context, w webgpu.Workload) (float64, string, error) {
	c := DefaultCPU()
	defer c.Close()
	return MeasureRate(ctx, c, w, 3, 10*time.Second)
}

// MeasureRate times w on b (see webgpu.Prepared.Time) and returns GFLOP/s and b's name.
func MeasureRate(ctx context.Context, b gpu.Backend, w webgpu.Workload, reps int, budget time.Duration) (float64, string, error) {
	p, err := w.Prepare(b)
	if err != nil {
		return 0, b.Name(), err
	}
	defer p.Free()
	d, err := p.Time(ctx, reps, budget)
	if err != nil {
		return 0, b.Name(), err
	}
	if d <= 0 {
		return 0, b.Name(), errors.New("backends: timing returned no time")
	}
	return w.FLOPs / d.Seconds() / 1e9, b.Name(), nil
}

// DefaultTuned is Default, except that a real GPU without cached speeds is tuned first (up to
// about a minute, once per adapter, driver and kernel sources: "Tuning for this GPU, first run
// only"), which measures it against the CPU; it is then the default only when faster.
// opts.Progress reports each step. With $KLEINBILD_NO_TUNE=1 it is Default. It returns
// ctx.Err() (with the CPU backend) when cancelled while tuning.
func DefaultTuned(ctx context.Context, opts TuneOptions) (gpu.Backend, error) {
	if envIsOne(EnvNoTune) {
		return Default(), nil
	}
	return defaultBackend(ctx, &opts)
}

// TuningMessage is what a user interface shows while DefaultTuned tunes (with the progress
// of TuneOptions.Progress).
const TuningMessage = "Tuning for this GPU, first run only"

// DefaultNeedsTuning reports whether DefaultTuned would tune now: a real GPU (discrete or
// integrated) has no measured speeds in the cache, or speeds measured with other kernel
// sources, no device override is set and
// $KLEINBILD_NO_TUNE is not 1. It opens no device (a user interface asks it to decide
// whether to show TuningMessage).
func DefaultNeedsTuning() bool {
	if envIsOne(EnvNoTune) || !webgpu.Compiled {
		return false
	}
	if EnvID() != "" {
		return false
	}
	ads, err := webgpu.AdapterDetails()
	if err != nil {
		return false
	}
	for _, a := range ads {
		if a.Info.Kind == gpu.KindDiscrete || a.Info.Kind == gpu.KindIntegrated {
			if g, c := cachedSpeeds(a); g <= 0 || c <= 0 || !webgpu.TuningCurrent(a) {
				return true
			}
		}
	}
	return false
}

// UntunedNote is what a front end says about device b opened by name (--backend,
// $KLEINBILD_BACKEND: Open never tunes) when it runs without a current tuning: its kernels
// then run their reference variants and its dispatches are sized from the FMA probe or the
// device kind. It is "" for a tuned device and for CPU backends.
func UntunedNote(b gpu.Backend) string {
	w, ok := b.(*webgpu.Backend)
	if !ok || w.Tuned() {
		return ""
	}
	return fmt.Sprintf("%s runs untuned (no tuning of these kernels for it yet): reference kernels and estimated dispatch sizes; "+
		"run 'kleinbild tune' once (about a minute) to tune it", b.Info().Name)
}
