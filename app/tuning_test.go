package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/run"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/gpu/webgpu"
)

// TestTuningIsShown: when the automatic device needs tuning, the first run says
// "Tuning for this GPU, first run only" with a moving bar, then generates.
func TestTuningIsShown(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	release := make(chan struct{})
	tuned := 0
	u.run.Tuner = run.Tuner{
		Needs: func() bool { return tuned == 0 },
		Tune: func(ctx context.Context, opts backends.TuneOptions) (gpu.Backend, error) {
			opts.Progress(webgpu.TuneProgress{Family: "linear", Done: 2, Total: 4})
			select {
			case <-release:
			case <-ctx.Done():
			}
			tuned++
			return nil, nil
		},
	}
	if u.model.EffectiveDevice() != "" {
		t.Skipf("the automatic device is %q here", u.model.EffectiveDevice())
	}
	test.Type(u.ctl.Prompt, "a lighthouse")
	test.Tap(u.ctl.Generate)
	h.waitFor("the tuning message", 5*time.Second, func() bool {
		return strings.Contains(u.view.ProgressText.Text, backends.TuningMessage) && strings.Contains(u.view.ProgressText.Text, "2 of 4")
	})
	if u.view.Bar.Value <= 0 {
		t.Errorf("the bar stands at %v while tuning is half done", u.view.Bar.Value)
	}
	close(release)
	h.waitFor("the run to end", 10*time.Second, func() bool { return u.run.Current() == nil })
	if fake.calls.Load() != 1 || tuned != 1 {
		t.Errorf("generated %d times, tuned %d times", fake.calls.Load(), tuned)
	}
}
