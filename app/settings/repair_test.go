package settings

import (
	"math"
	"reflect"
	"testing"

	"kleinbild/engine"
)

// TestRepair: invalid remembered values are reset with one notice each; valid ones are kept
// (issue 23 item 13: a remembered invalid width or device blocked --generate).
func TestRepair(t *testing.T) {
	s := Settings{Settings: engine.Settings{Width: 250, Height: 512, Steps: 9999, Guidance: 99}, Count: 40, Device: "garbage"}
	notes := s.Repair([]string{"openblas", "purego", "webgpu"})
	if len(notes) != 5 {
		t.Errorf("notices %q, want 5", notes)
	}
	if s.Width != 0 || s.Height != 512 || s.Steps != 0 || s.Count != 0 || s.Guidance != 0 || s.Device != "" {
		t.Errorf("after repair: %+v", s)
	}
	ok := Settings{Settings: engine.Settings{Width: 256, Height: 64, Steps: 4, Guidance: 4}, Count: 2, Device: "webgpu:1"}
	want := ok
	if notes := ok.Repair([]string{"openblas", "webgpu"}); len(notes) != 0 || !reflect.DeepEqual(ok, want) {
		t.Errorf("valid settings changed: %+v, %q", ok, notes)
	}
	gone := Settings{Device: "webgpu:0"}
	if notes := gone.Repair([]string{"purego"}); len(notes) != 1 || gone.Device != "" {
		t.Errorf("webgpu device in a build without webgpu: %+v %q", gone, notes)
	}
	variant := Settings{ModelVariant: "turbo", ModelVAEGroups: -3}
	if notes := variant.Repair(nil); len(notes) != 2 || variant.ModelVariant != "" || variant.ModelVAEGroups != 0 {
		t.Errorf("invalid model variant: %+v %q", variant, notes)
	}
	for _, v := range []string{"distilled", "base"} {
		s := Settings{ModelVariant: v}
		if notes := s.Repair(nil); len(notes) != 0 || s.ModelVariant != v {
			t.Errorf("variant %q: %+v %q", v, s, notes)
		}
	}
}

// TestRepairAdapters: remembered adapters without a file or with a strength outside ±4 (or
// NaN) are dropped or reset, each with a notice; good ones are kept as they are.
func TestRepairAdapters(t *testing.T) {
	s := Settings{Adapters: []Adapter{{Path: "a.safetensors", Strength: 0.5, Off: true}, {Path: ""}, {Path: "b.safetensors", Strength: 9}, {Path: "c.safetensors", Strength: math.NaN()}}}
	notes := s.Repair(nil)
	want := []Adapter{{Path: "a.safetensors", Strength: 0.5, Off: true}, {Path: "b.safetensors", Strength: 1}, {Path: "c.safetensors", Strength: 1}}
	if len(notes) != 3 || !reflect.DeepEqual(s.Adapters, want) {
		t.Errorf("notes %q, adapters %+v", notes, s.Adapters)
	}
}

// TestRepairMapsCPU: "cpu", the id the app once used for its CPU fallback, is read as the
// build's best CPU backend (the first name) rather than dropped as unknown.
func TestRepairMapsCPU(t *testing.T) {
	s := Settings{Device: "cpu"}
	if notes := s.Repair([]string{"openblas", "purego", "webgpu"}); len(notes) != 0 || s.Device != "openblas" {
		t.Errorf("device %q, notes %q: want openblas and no notice", s.Device, notes)
	}
}

// TestRepairUsesEngineRules: the images per run and the schedule are held to the engine's
// rules (engine.MaxCount, the schedule names with power:<alpha>), not to copies of them.
func TestRepairUsesEngineRules(t *testing.T) {
	s := Settings{Settings: engine.Settings{Schedule: "power:1.5"}, Count: engine.MaxCount}
	if notes := s.Repair(nil); len(notes) != 0 || s.Count != engine.MaxCount || s.Schedule != "power:1.5" {
		t.Errorf("valid settings repaired: %q, %+v", notes, s)
	}
	s = Settings{Settings: engine.Settings{Schedule: "cosine"}, Count: engine.MaxCount + 1}
	if notes := s.Repair(nil); len(notes) != 2 || s.Count != 0 || s.Schedule != "" {
		t.Errorf("invalid settings kept: %q, %+v", notes, s)
	}
}
