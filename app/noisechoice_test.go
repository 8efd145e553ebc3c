package app

import (
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// TestNoiseChoice: the form's noise menu reaches the request (torch-compatible by default),
// survives a restart, and an image's metadata restores it (no noise key: torch).
func TestNoiseChoice(t *testing.T) {
	data, model := t.TempDir(), tinyModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	u := h.ui
	u.ctl.width.SetText("64")
	u.ctl.height.SetText("64")
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseTorch {
		t.Fatalf("default noise %q, want %q", got, engine.NoiseTorch)
	}
	u.ctl.noise.SetSelectedIndex(1)
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseStable {
		t.Fatalf("noise %q after choosing size-stable, want %q", got, engine.NoiseStable)
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	c := &h2.ui.ctl
	if noiseValue(c.noise) != engine.NoiseStable {
		t.Fatalf("after a restart the noise is %q", noiseValue(c.noise))
	}
	h2.ui.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if noiseValue(c.noise) != engine.NoiseTorch {
		t.Fatalf("an image without a noise key restored noise %q", noiseValue(c.noise))
	}
	h2.ui.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "new", Width: 64, Height: 64, Steps: 2, Seed: 1, Noise: engine.NoiseStable}})
	if noiseValue(c.noise) != engine.NoiseStable {
		t.Fatalf("an image with noise stable restored %q", noiseValue(c.noise))
	}
}
