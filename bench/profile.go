package bench

import (
	"errors"
	"fmt"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// Profiling (Options.Profile, `kleinbild bench --profile`): the backend times every dispatch
// with GPU timestamp queries (webgpu.Backend.StartProfile, vulkan.Backend's), and each run records the GPU time
// per op of its denoising steps and of its decoding.

// profiler is a backend that times its dispatches on the GPU (webgpu.Backend, vulkan.Backend).
type profiler interface {
	StartProfile() error
	TakeProfile() ([]webgpu.OpTime, error)
	StopProfile()
}

// errNoProfile is returned by Run with Options.Profile on a backend that cannot profile.
var errNoProfile = errors.New("bench: --profile needs a GPU device with timestamp queries (WebGPU or Vulkan)")

// startProfile starts profiling on b (nil, nil when off).
func startProfile(b gpu.Backend, on bool) (profiler, error) {
	if !on {
		return nil, nil
	}
	p, ok := b.(profiler)
	if !ok {
		return nil, errNoProfile
	}
	if err := p.StartProfile(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return p, nil
}

// RunProfile is the GPU time per op of one run: the sum over its denoising steps (Steps of
// them), and its decoding.
type RunProfile struct {
	Steps  int             `json:"steps"`
	Step   []webgpu.OpTime `json:"denoise"`
	Decode []webgpu.OpTime `json:"decode"`
}

// profileTaker takes a run's profile at its phase boundaries; the first error is kept.
type profileTaker struct {
	p   profiler
	err error
}

func (t *profileTaker) take() []webgpu.OpTime {
	if t == nil || t.p == nil {
		return nil
	}
	ops, err := t.p.TakeProfile()
	if err != nil && t.err == nil {
		t.err = err
	}
	return ops
}

// total is the GPU seconds of ops.
func total(ops []webgpu.OpTime) float64 {
	var s float64
	for _, o := range ops {
		s += o.Seconds
	}
	return s
}

// writeProfiles prints, per profiled run, each op's share of a denoising step's GPU time (and
// of the decoding's).
func (r *Report) writeProfiles(b *strings.Builder) {
	for _, run := range r.Runs {
		p := run.Profile
		if p == nil {
			continue
		}
		fmt.Fprintf(b, "\nGPU time per op (timestamp queries), %s:\n", run.Label)
		for _, part := range []struct {
			name string
			ops  []webgpu.OpTime
			div  int
		}{{"one step", p.Step, max(p.Steps, 1)}, {"decode", p.Decode, 1}} {
			all := total(part.ops)
			fmt.Fprintf(b, "  %s: %.3f s on the GPU\n", part.name, all/float64(part.div))
			for _, o := range part.ops {
				share := 0.0
				if all > 0 {
					share = 100 * o.Seconds / all
				}
				fmt.Fprintf(b, "    %-18s %5.1f %%  %9.3f ms  %6d dispatches\n", o.Op, share,
					1000*o.Seconds/float64(part.div), o.Dispatches/part.div)
			}
		}
	}
}
