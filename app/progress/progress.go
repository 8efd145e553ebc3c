// Package progress turns the engine's progress reports into a bar fraction and a status
// line with the elapsed time and an estimate of the time left.
package progress

import (
	"fmt"
	"time"

	"kleinbild/app/humanize"
	"kleinbild/engine"
	"kleinbild/estimate"
)

// Tracker turns engine progress reports into a bar fraction and a status line with the
// elapsed time and an estimate of the time left that counts down between reports. Times are
// wall-clock durations since the image was started.
//
// With a Plan (the phases' times the estimate expects, from this machine's measured runs)
// the bar gives each phase its share of the time, decoding included, and the time left is
// the whole image's: the current phase's rest, from its own progress, and the phases after
// it. Without one, the phases have fixed shares and only the prompt's reading and the
// denoising tell their time left. "Almost done" is said only while decoding (issue 28 item
// 9: it showed at "Step 1 of 4" and while the prompt was read), and in a run of several
// images (InRun) only on the last one, whose bar and time left are the run's.
type Tracker struct {
	plan         Plan
	last         engine.Progress
	lastAt       time.Duration
	denoiseStart time.Duration
	denoising    bool
	denoiseFrom  float64 // the fraction of denoising done at denoiseStart
	rebased      bool    // denoiseStart was moved to the second step's start
	decodeStart  time.Duration
	decoding     bool
	encodeStart  time.Duration
	encodeFrom   float64 // the fraction of the layers read at encodeStart
	encoding     bool
	frac         float64
	left         time.Duration // estimated time left at lastAt, when hasLeft
	hasLeft      bool
	within       float64       // the fraction of the current phase done at lastAt
	restAfter    time.Duration // with a plan: the part of left after the current phase
	paceRatio    float64       // how the last measured phase ran against its plan (0: unknown)
	run          run           // where the image sits in a run of several (InRun)
	// activity is what the app does before the engine's first report (checking the
	// references, tuning for the GPU), "" for the model's loading.
	activity string
}

// Plan is the time each phase of one image is expected to take; a zero phase is skipped
// (no load when the model is open, no prompt reading when its encoding is cached).
type Plan struct {
	Load, Encode, Refs, Denoise, Decode time.Duration
}

// total is the sum of the phases.
func (p Plan) total() time.Duration { return p.Load + p.Encode + p.Refs + p.Denoise + p.Decode }

// phases lists the plan's phases in order with their times.
func (p Plan) phases() [5]struct {
	phase engine.Phase
	d     time.Duration
} {
	return [5]struct {
		phase engine.Phase
		d     time.Duration
	}{{engine.PhaseLoading, p.Load}, {engine.PhaseEncoding, p.Encode}, {engine.PhaseRefs, p.Refs},
		{engine.PhaseDenoise, p.Denoise}, {engine.PhaseDecoding, p.Decode}}
}

// SetPlan gives the tracker the phase times the estimate expects (call it before the first
// report; a plan of zero total is ignored).
func (t *Tracker) SetPlan(p Plan) { t.plan = p }

// HasPlan reports whether the tracker has a plan to go by.
func (t *Tracker) HasPlan() bool { return t.plan.total() > 0 }

// SetActivity names the work under way before the engine reports (text, such as
// "Checking the reference images…"), done the fraction of it finished (0..1; the bar
// moves within the loading part). The engine's first report replaces it.
func (t *Tracker) SetActivity(text string, done float64) {
	t.activity = text
	lo, hi := t.span(engine.PhaseLoading)
	t.frac = lo + (hi-lo)*min(max(done, 0), 1)
}

// span is where phase p sits on the bar: its share of the plan's time, or without a plan
// its fixed share (phaseSpan).
func (t *Tracker) span(p engine.Phase) (lo, hi float64) {
	total := t.plan.total()
	if total <= 0 {
		return phaseSpan(p)
	}
	if p == engine.PhaseDone {
		return 1, 1
	}
	var at time.Duration
	for _, ph := range t.plan.phases() {
		if ph.phase == p {
			return float64(at) / float64(total), float64(at+ph.d) / float64(total)
		}
		at += ph.d
	}
	return 0, 0
}

// after is the planned time of the phases after p.
func (t *Tracker) after(p engine.Phase) time.Duration {
	var d time.Duration
	seen := false
	for _, ph := range t.plan.phases() {
		if seen {
			d += ph.d
		}
		seen = seen || ph.phase == p
	}
	return d
}

// planned is p's planned time.
func (t *Tracker) planned(p engine.Phase) time.Duration {
	for _, ph := range t.plan.phases() {
		if ph.phase == p {
			return ph.d
		}
	}
	return 0
}

// phaseSpan is where a phase sits on the overall progress bar without a plan.
func phaseSpan(p engine.Phase) (lo, hi float64) {
	switch p {
	case engine.PhaseLoading:
		return 0, 0.02
	case engine.PhaseEncoding:
		return 0.02, 0.12
	case engine.PhaseRefs:
		return 0.12, 0.18
	case engine.PhaseDenoise:
		return 0.18, 0.92
	case engine.PhaseDecoding:
		return 0.92, 1
	case engine.PhaseDone:
		return 1, 1
	}
	return 0, 0
}

// Update digests one report received at now.
func (t *Tracker) Update(p engine.Progress, now time.Duration) {
	t.last, t.lastAt = p, now
	t.activity = ""
	within := 0.0
	if p.Blocks > 0 {
		within = float64(p.Block) / float64(p.Blocks)
	}
	t.hasLeft = false
	switch p.Phase {
	case engine.PhaseEncoding:
		// The prompt's time left, from the layers read so far.
		if !t.encoding {
			t.encoding, t.encodeStart, t.encodeFrom = true, now, within
		}
		if done := within - t.encodeFrom; done > 0 {
			t.setLeft(done/(1-t.encodeFrom), now-t.encodeStart)
		}
	case engine.PhaseRefs:
		if p.Steps > 0 {
			within = float64(p.Step-1) / float64(p.Steps)
		}
	case engine.PhaseDenoise:
		if !t.denoising {
			t.denoising, t.denoiseStart, t.denoiseFrom = true, now, 0
		}
		if p.Steps > 0 {
			within = (float64(max(p.Step-1, 0)) + within) / float64(p.Steps)
		}
		// The first step carries the warm-up (it measured 15 s of a 39 s run, the other
		// three 3 s): from the second step on, the pace is measured from there.
		if p.Step >= 2 && !t.rebased {
			t.rebased, t.denoiseStart, t.denoiseFrom = true, now, within
		}
		if done := within - t.denoiseFrom; done > 0 {
			t.setLeft(done/(1-t.denoiseFrom), now-t.denoiseStart)
		}
	case engine.PhaseDecoding:
		// The decoder's blocks differ in cost (the last ones, at full size, cost the most):
		// their count gives the bar, not the time left (issue 36 item 9: "about 12 s left"
		// came twice in one decode). planLeft counts the plan's time down instead.
		if !t.decoding {
			t.decoding, t.decodeStart = true, now
		}
	}
	lo, hi := t.span(p.Phase)
	t.frac = lo + (hi-lo)*min(max(within, 0), 1)
	t.within = min(max(within, 0), 1)
	t.planLeft()
}

// planLeft sets the whole image's time left from the plan: the current phase's rest (its
// own measured pace where it has one, else the plan's share left) and the phases after it,
// these scaled by how the current phase runs against its plan.
func (t *Tracker) planLeft() {
	ph := t.last.Phase
	planned := t.planned(ph)
	if t.plan.total() <= 0 || (planned <= 0 && ph != engine.PhaseDone) {
		return
	}
	rest := time.Duration(float64(planned) * (1 - t.within))
	pace := 1.0
	switch {
	case ph == engine.PhaseDecoding:
		// The plan's decoding time at the pace measured before, less the time it has run.
		pace = t.pace()
		rest = max(time.Duration(float64(planned)*pace)-(t.lastAt-t.decodeStart), 0)
	case t.hasLeft: // the phase's own pace, measured
		rest = t.left
		if want := float64(planned) * (1 - t.within); want > 0 && t.within >= 0.25 {
			pace = min(max(float64(t.left)/want, 0.5), 2)
			t.paceRatio = pace
		}
	}
	t.left = rest + time.Duration(float64(t.after(ph))*pace)
	t.restAfter = time.Duration(float64(t.after(ph)) * pace)
	t.hasLeft = true
}

// setLeft estimates the time left of a phase of which the fraction done took spent.
func (t *Tracker) setLeft(done float64, spent time.Duration) {
	if done > 0 && spent > 0 {
		t.left = time.Duration(float64(spent) * (1 - min(done, 1)) / done)
		t.hasLeft = true
	}
}

// Fraction is the bar's fraction of the image done (of this image alone, in a run).
func (t *Tracker) Fraction() float64 { return t.frac }

// Status is the bar fraction and status line at now.
func (t *Tracker) Status(now time.Duration) (fraction float64, text string) {
	p := t.last
	switch p.Phase {
	case engine.PhaseLoading, "":
		text = "Loading the model…"
		if t.activity != "" {
			text = t.activity
		}
	case engine.PhaseEncoding:
		text = "Reading the prompt…"
		if p.Blocks > 0 {
			text = fmt.Sprintf("Reading the prompt (layer %d of %d)…", p.Block, p.Blocks)
		}
	case engine.PhaseRefs:
		text = fmt.Sprintf("Encoding reference %d of %d…", p.Step, p.Steps)
	case engine.PhaseDenoise:
		text = fmt.Sprintf("Step %d of %d", p.Step, p.Steps)
	case engine.PhaseDecoding:
		text = "Decoding the image…"
	case engine.PhaseDone:
		text = "Saving…"
	default:
		text = string(p.Phase) + "…"
	}
	text += " · " + humanize.Duration(t.run.spent+now)
	if later, ok := t.laterImages(); t.hasLeft && ok {
		// Counting down, the current phase's rest runs out; the phases after it stay.
		left := max(t.left-(now-t.lastAt), t.restAfter) + later
		last := (p.Phase == engine.PhaseDecoding || p.Phase == engine.PhaseDone) && t.lastImage()
		switch {
		case left > time.Second:
			text += " · about " + humanize.Duration(left) + " left"
		case last:
			text += " · almost done"
		}
	}
	return t.runFraction(t.barFraction(now)), t.runText(text)
}

// barFraction is the bar at now: while decoding without block reports, it moves with the
// time spent against the plan, up to nine tenths of the phase.
func (t *Tracker) barFraction(now time.Duration) float64 {
	if t.last.Phase != engine.PhaseDecoding || t.last.Blocks > 0 {
		return t.frac
	}
	planned := t.planned(engine.PhaseDecoding)
	if planned <= 0 {
		return t.frac
	}
	lo, hi := t.span(engine.PhaseDecoding)
	done := min(float64(now-t.lastAt)/float64(planned), 0.9)
	return lo + (hi-lo)*done
}

// WarmupSeconds is the time the first image after the model opens (p plans its loading)
// is expected to spend warming up, beyond its phases: the first denoising step compiles the
// kernels and allocates the buffers (it measured 15 s of a 39 s run, each later step 3 s),
// and the first decode does the same. The prior is one more image's denoising and decoding,
// so that neither the fit line nor the time left promises too short a first image (issue 36
// item 9: 1024×576 was estimated at 21 s and took 46–48 s). Once the image runs, its
// measured pace takes over. A loaded model plans none.
func WarmupSeconds(p estimate.Phases) float64 {
	if p.Load <= 0 {
		return 0
	}
	return p.Denoise + p.Decode
}
