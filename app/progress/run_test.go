package progress

import (
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
)

// Issue 36 item 7: in a run of 8 the line showed one image's figures as the run's ("Image 2
// of 8 … about 2.7 s left" while 19 s remained, "almost done" at 49 %). The bar, the
// elapsed time and the time left are the run's; "almost done" waits for the last image.
func TestRunShowsTheWholeRun(t *testing.T) {
	each := Plan{Denoise: 2 * time.Second, Decode: 700 * time.Millisecond}
	var tr Tracker
	tr.SetPlan(each)
	tr.InRun(1, 8, 3*time.Second, each)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 0)
	f, s := tr.Status(0)
	if s != "Image 2 of 8 · Step 1 of 4 · 3.0 s · about 19 s left" || f != 0.125 {
		t.Errorf("image 2 of 8 starts: %v %q", f, s)
	}
	// The 4th image's decoding is half the run: no "almost done", and the later four's time.
	tr = Tracker{}
	tr.SetPlan(each)
	tr.InRun(3, 8, 9*time.Second, each)
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding}, 2*time.Second)
	f, s = tr.Status(2600 * time.Millisecond)
	if strings.Contains(s, "almost done") || !strings.HasSuffix(s, "about 11 s left") || f < 0.45 || f > 0.5 {
		t.Errorf("image 4 of 8 decodes: %v %q", f, s)
	}
	// The last image's decoding, nearly over, is almost done.
	tr = Tracker{}
	tr.SetPlan(each)
	tr.InRun(7, 8, 21*time.Second, each)
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding}, 2*time.Second)
	if f, s := tr.Status(2600 * time.Millisecond); !strings.HasSuffix(s, "almost done") || f < 0.95 {
		t.Errorf("image 8 of 8 decodes: %v %q", f, s)
	}
}

// The first image of a run counts the later ones by their own plan (no load, no prompt),
// at the pace the first image runs against its plan.
func TestRunLaterImagesFromTheirPlan(t *testing.T) {
	var tr Tracker
	tr.SetPlan(Plan{Load: 10 * time.Second, Encode: 2 * time.Second, Denoise: 4 * time.Second, Decode: time.Second})
	tr.InRun(0, 3, 0, Plan{Denoise: 4 * time.Second, Decode: time.Second})
	tr.Update(engine.Progress{Phase: engine.PhaseLoading}, 0)
	if _, s := tr.Status(0); s != "Image 1 of 3 · Loading the model… · 0.0 s · about 27 s left" {
		t.Errorf("loading: %q", s)
	}
	// Steps at twice their planned time: the later images too.
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 12*time.Second)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4}, 14*time.Second)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 3, Steps: 4}, 16*time.Second)
	// Two steps of 2 s and the decoding's 2 s here, and 2 × 10 s after.
	if _, s := tr.Status(16 * time.Second); !strings.HasSuffix(s, "about 26 s left") {
		t.Errorf("slow steps: %q", s)
	}
}

// Without a plan for the later images nor one measured, the line says no time left rather
// than the image's own.
func TestRunWithoutPlanNoTimeLeft(t *testing.T) {
	var tr Tracker
	tr.InRun(0, 4, 0, Plan{})
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 0)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4}, time.Second)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 3, Steps: 4}, 2*time.Second)
	if _, s := tr.Status(2 * time.Second); strings.Contains(s, "left") {
		t.Errorf("first of 4, no plan: %q", s)
	}
	// The second image measures the later ones' pace itself.
	tr = Tracker{}
	tr.InRun(1, 4, 5*time.Second, Plan{})
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 0)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4}, time.Second)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 3, Steps: 4}, 2*time.Second)
	// 2 s of this image's steps left, and two more images of 4 s.
	if _, s := tr.Status(2 * time.Second); !strings.HasSuffix(s, "about 10 s left") {
		t.Errorf("second of 4, no plan: %q", s)
	}
}

// Issue 36 item 9: "about 12 s left" came twice in one decode. The decoder's first block
// carries its buffers' allocation and the first levels are cheap, the last dear: the time
// left counts the plan down and never rises while decoding.
func TestDecodeTimeLeftNeverRises(t *testing.T) {
	var tr Tracker
	tr.SetPlan(Plan{Denoise: 8 * time.Second, Decode: 12 * time.Second})
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding}, 0)
	blocks := []struct {
		block int
		at    time.Duration
	}{{1, 2 * time.Second}, {4, 2200 * time.Millisecond}, {8, 2500 * time.Millisecond},
		{12, 5 * time.Second}, {16, 8 * time.Second}, {20, 11 * time.Second}, {22, 12 * time.Second}}
	prev := time.Hour
	now := time.Duration(0)
	for _, b := range blocks {
		for ; now < b.at; now += 250 * time.Millisecond {
			prev = checkLeft(t, &tr, now, prev)
		}
		tr.Update(engine.Progress{Phase: engine.PhaseDecoding, Block: b.block, Blocks: 23}, b.at)
		prev = checkLeft(t, &tr, b.at, prev)
	}
}

// checkLeft fails t when the time left at now is above prev, and returns it.
func checkLeft(t *testing.T, tr *Tracker, now, prev time.Duration) time.Duration {
	t.Helper()
	_, s := tr.Status(now)
	i := strings.Index(s, "about ")
	if i < 0 {
		return prev
	}
	d, err := time.ParseDuration(strings.ReplaceAll(strings.TrimSuffix(s[i+len("about "):], " left"), " ", ""))
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	if d > prev {
		t.Errorf("at %v the time left rose to %v from %v: %q", now, d, prev, s)
	}
	return d
}
