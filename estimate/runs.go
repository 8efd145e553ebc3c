package estimate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"time"

	"kleinbild/engine"
)

// RunFactors are what measured generations of one model taught: each phase's measured time
// over the time the kernel rates give it. 0 means not measured yet.
type RunFactors struct {
	Encode     float64   `json:"encode,omitempty"`
	References float64   `json:"references,omitempty"`
	Denoise    float64   `json:"denoise,omitempty"`
	Decode     float64   `json:"decode,omitempty"`
	Updated    time.Time `json:"updated"`
}

// Bounds on one run's factor: outside them the measurement (a suspended machine, a clock
// jump) says nothing about the model.
const (
	minRunFactor = 1.0 / 50
	maxRunFactor = 50
	// maxRunModels is how many models a calibration remembers runs of; the least recently
	// run are dropped.
	maxRunModels = 16
	// cachedEncodeShare: an encoding under this share of its modeled time was a cached
	// prompt's, which says nothing about the text encoder's speed.
	cachedEncodeShare = 0.25
)

// Key identifies m's networks and weight sizes (quantized files run at other speeds), the
// key of its entry in Calibration.Runs.
func (m Model) Key() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%#v", m))
	return m.Name + "-" + hex.EncodeToString(sum[:8])
}

// runFactors are what measured runs taught of m: its own factors, each phase not measured
// yet borrowed from its twin, the same networks and weights made the other way (base or
// distilled). Their kernels are the same and the modeled time counts the passes of a step,
// so the twin's factors hold: a base model run after many distilled ones was estimated
// from the kernel rates alone (issue 36 item 9: "about 2 min 12 s left" of a 20 s run).
func (c Calibration) runFactors(m Model) (RunFactors, bool) {
	own, ok := c.Runs[m.Key()]
	twin := m
	twin.Distilled = !m.Distilled
	other, ok2 := c.Runs[twin.Key()]
	if !ok2 {
		return own, ok
	}
	for _, p := range [...]struct{ own, other *float64 }{{&own.Encode, &other.Encode},
		{&own.References, &other.References}, {&own.Denoise, &other.Denoise}, {&own.Decode, &other.Decode}} {
		if *p.own <= 0 {
			*p.own = *p.other
		}
	}
	return own, true
}

// apply scales the phases of secs that f has a factor for. The references and the decoder
// run the same VAE kernels, so each borrows the other's factor until it has its own.
func (f RunFactors) apply(secs Phases) (Phases, bool) {
	refs, dec := f.References, f.Decode
	if refs <= 0 {
		refs = dec
	}
	if dec <= 0 {
		dec = refs
	}
	applied := false
	scale := func(v *float64, k float64) {
		if k > 0 {
			*v *= k
			applied = true
		}
	}
	scale(&secs.Encode, f.Encode)
	scale(&secs.References, refs)
	scale(&secs.Denoise, f.Denoise)
	scale(&secs.Decode, dec)
	return secs, applied
}

// WithRun returns c with one measured image of m folded into c.Runs: timings are the
// engine's phase times of that image (engine.Result.Timings) for req (its Load and Count
// are ignored). Each phase's factor is its measured time over its time at c's rates, the
// mean with the factor before when there is one. A phase not run or not timed, and an
// encoding served from the prompt cache, leave their factor as it was.
func (c Calibration) WithRun(m Model, req Request, timings map[engine.Phase]time.Duration, now time.Time) (Calibration, error) {
	if !c.Valid() {
		return c, errors.New("record run: no valid kernel rates to compare with")
	}
	req.Load, req.Count = false, 1
	base := c
	base.Runs = nil
	rep, err := Estimate(m, req, Machine{Rates: base})
	if err != nil {
		return c, fmt.Errorf("record run: %w", err)
	}
	key := m.Key()
	f := c.Runs[key]
	fold := func(k *float64, modeled float64, measured time.Duration, floor float64) {
		if modeled <= 0 || measured <= 0 || measured.Seconds() < floor*modeled {
			return
		}
		r := math.Min(math.Max(measured.Seconds()/modeled, minRunFactor), maxRunFactor)
		if *k > 0 {
			r = (*k + r) / 2
		}
		*k = r
	}
	p := rep.PhaseSeconds
	fold(&f.Encode, p.Encode, timings[engine.PhaseEncoding], cachedEncodeShare)
	fold(&f.References, p.References, timings[engine.PhaseRefs], 0)
	fold(&f.Denoise, p.Denoise, timings[engine.PhaseDenoise], 0)
	fold(&f.Decode, p.Decode, timings[engine.PhaseDecoding], 0)
	if f.Encode <= 0 && f.References <= 0 && f.Denoise <= 0 && f.Decode <= 0 {
		return c, errors.New("record run: no phase was timed")
	}
	f.Updated = now
	runs := maps.Clone(c.Runs)
	if runs == nil {
		runs = map[string]RunFactors{}
	}
	runs[key] = f
	for len(runs) > maxRunModels {
		oldest := key
		for k, v := range runs {
			if v.Updated.Before(runs[oldest].Updated) {
				oldest = k
			}
		}
		delete(runs, oldest)
	}
	c.Runs = runs
	return c, nil
}

// RecordRun folds one measured image (WithRun) into the calibration stored at path and
// returns it. Without a stored calibration there is nothing to compare with: an error.
func RecordRun(path string, m Model, req Request, timings map[engine.Phase]time.Duration) (Calibration, error) {
	c, err := LoadCalibration(path)
	if err != nil {
		return Calibration{}, fmt.Errorf("record run: %w", err)
	}
	if c, err = c.WithRun(m, req, timings, time.Now().UTC()); err != nil {
		return Calibration{}, err
	}
	if err := c.Save(path); err != nil {
		return Calibration{}, err
	}
	return c, nil
}
