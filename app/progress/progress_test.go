package progress

import (
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
)

func TestProgressEstimate(t *testing.T) {
	var tr Tracker
	tr.Update(engine.Progress{Phase: engine.PhaseLoading}, 0)
	if _, s := tr.Status(500 * time.Millisecond); s != "Loading the model… · 0.5 s" {
		t.Errorf("loading: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 2*time.Second)
	f, s := tr.Status(2 * time.Second)
	if f != 0.18 || s != "Step 1 of 4 · 2.0 s" {
		t.Errorf("denoise start: %v %q", f, s)
	}
	// One of four steps took 3 s: 9 s left, counting down between reports.
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4, Block: 10, Blocks: 10}, 5*time.Second)
	if _, s := tr.Status(5 * time.Second); !strings.HasSuffix(s, "about 9.0 s left") {
		t.Errorf("after one step: %q", s)
	}
	if _, s := tr.Status(8 * time.Second); !strings.HasSuffix(s, "about 6.0 s left") {
		t.Errorf("3 s later: %q", s)
	}
	// Overdue at step 1 of 4: no "almost done" (issue 28 item 9), and no time left.
	if _, s := tr.Status(20 * time.Second); strings.Contains(s, "almost done") || strings.Contains(s, "left") {
		t.Errorf("overdue: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding, Block: 1, Blocks: 2}, 14*time.Second)
	if f, s := tr.Status(14 * time.Second); f != 0.96 || s != "Decoding the image… · 14 s" {
		t.Errorf("decoding: %v %q", f, s)
	}
}

// Before the engine reports, the line names what the app does (reading a reference is not
// "Loading the model"), and the bar moves with it; the first report takes over.
func TestActivityBeforeTheEngine(t *testing.T) {
	var tr Tracker
	tr.SetActivity("Checking the reference images (1)…", 0.5)
	frac, s := tr.Status(time.Second)
	if !strings.HasPrefix(s, "Checking the reference images (1)…") || frac <= 0 {
		t.Errorf("activity: %v %q", frac, s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding}, 2*time.Second)
	if _, s := tr.Status(2 * time.Second); !strings.HasPrefix(s, "Reading the prompt…") {
		t.Errorf("after the first report: %q", s)
	}
}

// While the prompt is read the line shows the time left, from the layers read so far.
func TestTimeLeftWhileReadingThePrompt(t *testing.T) {
	var tr Tracker
	tr.Update(engine.Progress{Phase: engine.PhaseLoading}, 0)
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding}, time.Second)
	if _, s := tr.Status(time.Second); s != "Reading the prompt… · 1.0 s" {
		t.Errorf("encoding start: %q", s)
	}
	// 9 of 36 layers in 6 s: 18 s left, counting down between reports.
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding, Block: 9, Blocks: 36}, 7*time.Second)
	if _, s := tr.Status(7 * time.Second); s != "Reading the prompt (layer 9 of 36)… · 7.0 s · about 18 s left" {
		t.Errorf("a quarter read: %q", s)
	}
	if _, s := tr.Status(10 * time.Second); !strings.HasSuffix(s, "about 15 s left") {
		t.Errorf("3 s later: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding, Block: 27, Blocks: 36}, 19*time.Second)
	if _, s := tr.Status(19 * time.Second); !strings.HasSuffix(s, "about 6.0 s left") {
		t.Errorf("three quarters read: %q", s)
	}
	// Denoising starts its own estimate: none until a step's blocks report.
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 25*time.Second)
	if _, s := tr.Status(25 * time.Second); strings.Contains(s, "left") {
		t.Errorf("denoise start: %q", s)
	}
}

// A first report that comes after some layers were read counts from there.
func TestPromptTimeLeftFromTheFirstReport(t *testing.T) {
	var tr Tracker
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding, Block: 4, Blocks: 8}, 2*time.Second)
	if _, s := tr.Status(2 * time.Second); strings.Contains(s, "left") {
		t.Errorf("no layer timed yet: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding, Block: 6, Blocks: 8}, 4*time.Second)
	if _, s := tr.Status(4 * time.Second); !strings.HasSuffix(s, "about 2.0 s left") {
		t.Errorf("two layers in 2 s, two to go: %q", s)
	}
}

// Issue 28 item 9: with the phase times the estimate expects, the bar gives decoding its
// share of the time (it sat at 100 % for over 10 s while decoding), the time left is the
// whole image's, and "almost done" comes only while decoding, never while the prompt is
// read or at step 1 of 4.
func TestPlanTimeLeft(t *testing.T) {
	var tr Tracker
	if tr.HasPlan() {
		t.Error("a new tracker has a plan")
	}
	tr.SetPlan(Plan{Encode: 2 * time.Second, Denoise: 8 * time.Second, Decode: 4 * time.Second})
	tr.Update(engine.Progress{Phase: engine.PhaseEncoding, Blocks: 36}, 0)
	if _, s := tr.Status(time.Second); !strings.HasSuffix(s, "about 13 s left") {
		t.Errorf("reading the prompt: %q", s)
	}
	if _, s := tr.Status(5 * time.Second); !strings.HasSuffix(s, "about 12 s left") {
		t.Errorf("reading the prompt, overdue: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 2*time.Second)
	f, s := tr.Status(2 * time.Second)
	if !strings.HasSuffix(s, "about 12 s left") || f < 0.14 || f > 0.15 {
		t.Errorf("step 1 of 4: %v %q", f, s)
	}
	if _, s := tr.Status(30 * time.Second); strings.Contains(s, "almost done") || !strings.HasSuffix(s, "about 4.0 s left") {
		t.Errorf("step 1 of 4, long overdue: %q", s)
	}
	// Two of four steps in 4 s, as planned: 4 s of steps and 4 s of decoding left.
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4, Block: 10, Blocks: 10}, 6*time.Second)
	if _, s := tr.Status(6 * time.Second); !strings.HasSuffix(s, "about 8.0 s left") {
		t.Errorf("half the steps: %q", s)
	}
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding}, 10*time.Second)
	f0, s := tr.Status(10 * time.Second)
	f1, _ := tr.Status(12 * time.Second)
	if f0 > 0.72 || f1 <= f0 || f1 >= 1 || !strings.HasSuffix(s, "about 4.0 s left") {
		t.Errorf("decoding: bar %v then %v, %q", f0, f1, s)
	}
	if _, s := tr.Status(13500 * time.Millisecond); !strings.HasSuffix(s, "almost done") {
		t.Errorf("decoding, nearly over: %q", s)
	}
	// The decoder's blocks differ in cost: half of them in 1 s say nothing of the time left,
	// which counts the plan's 4 s down (issue 36 item 9).
	tr.Update(engine.Progress{Phase: engine.PhaseDecoding, Block: 2, Blocks: 4}, 11*time.Second)
	if _, s := tr.Status(11 * time.Second); !strings.HasSuffix(s, "about 3.0 s left") || !strings.Contains(s, "Decoding") {
		t.Errorf("decoding, a second in: %q", s)
	}
}

// The first step's warm-up does not set the pace: from the second step on the time left
// is measured from there (a slow first step made "about 1 min 49 s left" of a run that
// ended 27 s later).
func TestPaceFromTheSecondStep(t *testing.T) {
	var tr Tracker
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 0)
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4}, 12*time.Second) // a 12 s first step
	tr.Update(engine.Progress{Phase: engine.PhaseDenoise, Step: 2, Steps: 4, Block: 10, Blocks: 10}, 13*time.Second)
	if _, s := tr.Status(13 * time.Second); !strings.HasSuffix(s, "about 2.0 s left") {
		t.Errorf("after a slow first step and a 1 s second one: %q", s)
	}
}
