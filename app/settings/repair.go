package settings

import (
	"fmt"
	"math"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/lora"
	"kleinbild/gpu/backends"
)

// Repair resets remembered values that are no longer valid (a width that is not a multiple
// of 16 within range, steps or images per run out of range, a guidance out of range, a
// device this build does not know) to their defaults, and returns one notice per value reset,
// for the user. deviceNames are the backend names of this build (backends.Names), best
// first; a device "webgpu:N" is kept when webgpu is among them, and "cpu" (an id the app
// once had) becomes the first, the best CPU backend.
func (s *Settings) Repair(deviceNames []string) []string {
	var notes []string
	for _, side := range []struct {
		name string
		v    *int
	}{{"width", &s.Width}, {"height", &s.Height}} {
		if *side.v != 0 && engine.CheckSize(*side.v) != nil {
			notes = append(notes, fmt.Sprintf("the remembered %s %d was not valid and was reset to the default", side.name, *side.v))
			*side.v = 0
		}
	}
	if s.Steps != 0 && engine.ValidateSteps(s.Steps) != nil {
		notes = append(notes, fmt.Sprintf("the remembered %d steps were reset to the model's default", s.Steps))
		s.Steps = 0
	}
	if s.Count < 0 || s.Count > engine.MaxCount {
		notes = append(notes, fmt.Sprintf("the remembered %d images per run were reset to 1", s.Count))
		s.Count = 0
	}
	if s.Guidance != 0 && engine.ValidateGuidance(s.Guidance) != nil {
		notes = append(notes, fmt.Sprintf("the remembered guidance %v was reset to the model's default", s.Guidance))
		s.Guidance = 0
	}
	if s.ModelVariant != "" && s.ModelVariant != "distilled" && s.ModelVariant != "base" {
		notes = append(notes, fmt.Sprintf("the remembered model variant %q was not valid and was reset to what the files say", s.ModelVariant))
		s.ModelVariant = ""
	}
	if s.ModelVAEGroups < 0 || s.ModelVAEGroups > 1024 {
		notes = append(notes, fmt.Sprintf("the remembered VAE group count %d was not valid and was reset to the default", s.ModelVAEGroups))
		s.ModelVAEGroups = 0
	}
	if engine.CheckSettings(engine.Settings{Schedule: s.Schedule}, true) != nil {
		notes = append(notes, fmt.Sprintf("the remembered schedule %q is unknown and was reset to the default", s.Schedule))
		s.Schedule = ""
	}
	if engine.ValidateNoise(s.Noise) != nil {
		notes = append(notes, fmt.Sprintf("the remembered noise %q is unknown and was reset to torch-compatible", s.Noise))
		s.Noise = ""
	}
	if len(s.References) > engine.MaxReferences {
		notes = append(notes, fmt.Sprintf("only the first %d of %d remembered reference images were kept", engine.MaxReferences, len(s.References)))
		s.References = s.References[:engine.MaxReferences]
	}
	if strings.EqualFold(s.Device, "cpu") && len(deviceNames) > 0 {
		s.Device = deviceNames[0] // the app's former CPU id: the best CPU backend (backends.CPUID)
	}
	if s.Device != "" && !backends.KnownIn(s.Device, deviceNames) {
		notes = append(notes, fmt.Sprintf("the remembered compute device %q is not available in this build and was reset to automatic", s.Device))
		s.Device = ""
	}
	if s.Precision != "" && s.Precision != "exact" && s.Precision != "fast" {
		notes = append(notes, fmt.Sprintf("the remembered precision %q is unknown and was reset to the default", s.Precision))
		s.Precision = ""
	}
	notes = append(notes, s.repairAdapters()...)
	return notes
}

// maxAdapters bounds the adapters remembered (a damaged file cannot make the form list
// thousands).
const maxAdapters = 32

// repairAdapters drops remembered adapters without a file and resets strengths outside
// ±lora.MaxStrength (or not numbers) to 1.
func (s *Settings) repairAdapters() []string {
	var notes []string
	var kept []Adapter
	for _, a := range s.Adapters {
		if a.Path == "" || len(kept) >= maxAdapters {
			notes = append(notes, "a remembered adapter entry was not valid and was dropped")
			continue
		}
		if !(math.Abs(a.Strength) <= lora.MaxStrength) { // NaN too
			notes = append(notes, fmt.Sprintf("the remembered strength of adapter %s was not valid and was reset to 1", a.Path))
			a.Strength = 1
		}
		kept = append(kept, a)
	}
	s.Adapters = kept
	return notes
}
