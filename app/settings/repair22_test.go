package settings

import (
	"testing"

	"kleinbild/engine"
)

// TestRepairNoiseAndReferences: an unknown noise resets to torch-compatible, too many
// remembered references are cut to engine.MaxReferences; valid ones stay.
func TestRepairNoiseAndReferences(t *testing.T) {
	s := Settings{Settings: engine.Settings{Noise: "perlin", References: make([]string, engine.MaxReferences+3)}}
	if notes := s.Repair(nil); len(notes) != 2 || s.Noise != "" || len(s.References) != engine.MaxReferences {
		t.Fatalf("notes %q, noise %q, %d references", notes, s.Noise, len(s.References))
	}
	s = Settings{Settings: engine.Settings{Noise: engine.NoiseStable, References: []string{"a.png"}}}
	if notes := s.Repair(nil); len(notes) != 0 || s.Noise != engine.NoiseStable {
		t.Fatalf("valid settings changed: notes %q, noise %q", notes, s.Noise)
	}
}
