package engine

import (
	"fmt"
	"math"
	"math/rand/v2"

	"kleinbild/engine/sched"
)

// Limits of a generation's settings that are not a request's own (see also MaxSteps,
// MinGuidance..MaxGuidance, MinSidePx..MaxSidePx, EngineMinSidePx..EngineMaxSidePx,
// MaxReferences and MaxPromptBytes): the one definition of each, which the app's widgets,
// the CLI's flags and the stored forms (settings, queue) use.
const (
	// MinSteps is the fewest denoising steps a request may ask for.
	MinSteps = 1
	// MaxCount is the most images one run makes (the app's count, gui --count).
	MaxCount = 16
	// MaxSeed is the largest seed: any uint64 is one. RandomSeed draws at most
	// MaxRandomSeed, short enough to read and type.
	MaxSeed       = math.MaxUint64
	MaxRandomSeed = math.MaxUint32
)

// Schedules are the names of the sigma schedules a request may ask for ("" is "flow";
// "power" also takes an exponent as "power:1.5").
var Schedules = sched.Names

// RandomSeed draws a seed in 0..MaxRandomSeed: the one draw of every front end.
func RandomSeed() uint64 { return rand.Uint64N(MaxRandomSeed + 1) }

// FieldError is a setting that breaks its rule (CheckSettings). Field names the setting
// as Settings' JSON does ("width", "steps", "guidance", "schedule", ...), Value is what
// it held; Min and Max bound a number (both zero when the rule is no range), Choices are
// the words allowed (nil when the rule is no list). Err is the rule's own error, worded
// for people: Error returns it. Front ends word their own from the fields where they
// name the setting their way (a flag, a field of a form).
type FieldError struct {
	Field    string
	Value    any
	Min, Max float64
	Choices  []string
	Err      error
}

func (e *FieldError) Error() string { return e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// fieldErr is a *FieldError for err (nil when err is nil).
func fieldErr(err error, field string, value any, lo, hi float64, choices []string) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Value: value, Min: lo, Max: hi, Choices: choices, Err: err}
}

// CheckSettings is the one rule entry point for a generation's settings, for a model of
// the given variant: every field, before any file is read. A field that breaks its rule
// gives a *FieldError (the first one found, fields in Settings' order); the inpainting
// fields' combination gives a plain error. A size must lie within
// EngineMinSidePx..EngineMaxSidePx (0 is the default); NewPlan floors it to a multiple of
// SizeMultiple, as the reference pipeline does. Front ends hold users to exact multiples:
// CheckSize (the app) or CheckEngineSize (the CLI).
func CheckSettings(s Settings, distilled bool) error {
	if err := ValidateReferences(len(s.References)); err != nil {
		return fieldErr(err, "references", len(s.References), 0, MaxReferences, nil)
	}
	steps := s.Steps
	if steps == 0 {
		steps = StepsFor(distilled)
	}
	if err := ValidateSteps(steps); err != nil {
		return fieldErr(err, "steps", steps, MinSteps, MaxSteps, nil)
	}
	if err := ValidateGuidance(s.Guidance); err != nil {
		return fieldErr(err, "guidance", s.Guidance, MinGuidance, MaxGuidance, nil)
	}
	if err := ValidateNoise(s.Noise); err != nil {
		return fieldErr(err, "noise", s.Noise, 0, 0, []string{NoiseTorch, NoiseStable})
	}
	if err := sched.Check(s.Schedule); err != nil {
		return fieldErr(err, "schedule", s.Schedule, 0, 0, Schedules)
	}
	if err := ValidatePrompt(s.Prompt); err != nil {
		return fieldErr(err, "prompt", len(s.Prompt), 0, MaxPromptBytes, nil)
	}
	if err := ValidatePrompt(s.NegativePrompt); err != nil {
		return fieldErr(fmt.Errorf("negative %w", err), "negative_prompt", len(s.NegativePrompt), 0, MaxPromptBytes, nil)
	}
	for _, side := range []struct {
		field string
		px    int
	}{{"width", s.Width}, {"height", s.Height}} {
		if err := checkSideRange(side.field, side.px); err != nil {
			return err
		}
	}
	return checkInpaint(RequestOf(s))
}

// checkSideRange is the engine's rule for a side given in a request: 0 (the default) or
// EngineMinSidePx..EngineMaxSidePx (a *FieldError holding CheckEngineSize's *SizeError).
func checkSideRange(field string, px int) error {
	if px != 0 && (px < EngineMinSidePx || px > EngineMaxSidePx) {
		return fieldErr(fmt.Errorf("%s %w", field, CheckEngineSize(px)), field, px, EngineMinSidePx, EngineMaxSidePx, nil)
	}
	return nil
}
