// Package progress turns the engine's progress reports into a bar fraction and a status
// line with the elapsed time and an estimate of the time left.
package progress

import (
	"fmt"
	"time"

	"kleinbild/app/humanize"
	"kleinbild/engine"
)

// Tracker turns engine progress reports into a bar fraction and a status line with
// the elapsed time and, while the prompt is read and while denoising, an estimate of the
// phase's time left that counts down between reports. Times are wall-clock durations since the run started.
type Tracker struct {
	last         engine.Progress
	lastAt       time.Duration
	denoiseStart time.Duration
	denoising    bool
	encodeStart  time.Duration
	encodeFrom   float64 // the fraction of the layers read at encodeStart
	encoding     bool
	frac         float64
	left         time.Duration // estimated time left at lastAt, when hasLeft
	hasLeft      bool
	// activity is what the app does before the engine's first report (checking the
	// references, tuning for the GPU), "" for the model's loading.
	activity string
}

// SetActivity names the work under way before the engine reports (text, such as
// "Checking the reference images…"), done the fraction of it finished (0..1; the bar
// moves within the loading part). The engine's first report replaces it.
func (t *Tracker) SetActivity(text string, done float64) {
	t.activity = text
	lo, hi := phaseSpan(engine.PhaseLoading)
	t.frac = lo + (hi-lo)*min(max(done, 0), 1)
}

// phaseSpan is where a phase sits on the overall progress bar.
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
			t.denoising, t.denoiseStart = true, now
		}
		if p.Steps > 0 {
			within = (float64(max(p.Step-1, 0)) + within) / float64(p.Steps)
		}
		t.setLeft(within, now-t.denoiseStart)
	}
	lo, hi := phaseSpan(p.Phase)
	t.frac = lo + (hi-lo)*min(max(within, 0), 1)
}

// setLeft estimates the time left of a phase of which the fraction done took spent.
func (t *Tracker) setLeft(done float64, spent time.Duration) {
	if done > 0 && spent > 0 {
		t.left = time.Duration(float64(spent) * (1 - min(done, 1)) / done)
		t.hasLeft = true
	}
}

// Fraction is the bar's fraction of the whole image done.
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
	text += " · " + humanize.Duration(now)
	if t.hasLeft {
		if left := t.left - (now - t.lastAt); left > time.Second {
			text += " · about " + humanize.Duration(left) + " left"
		} else {
			text += " · almost done"
		}
	}
	return t.frac, text
}
