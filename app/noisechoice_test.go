package app

import (
	"testing"

	"kleinbild/app/form"
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
	u.ctl.Width.SetText("64")
	u.ctl.Height.SetText("64")
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseTorch {
		t.Fatalf("default noise %q, want %q", got, engine.NoiseTorch)
	}
	u.ctl.Noise.SetSelectedIndex(1)
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseStable {
		t.Fatalf("noise %q after choosing size-stable, want %q", got, engine.NoiseStable)
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	c := &h2.ui.ctl
	if form.NoiseValue(c.Noise) != engine.NoiseStable {
		t.Fatalf("after a restart the noise is %q", form.NoiseValue(c.Noise))
	}
	h2.ui.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if form.NoiseValue(c.Noise) != engine.NoiseTorch {
		t.Fatalf("an image without a noise key restored noise %q", form.NoiseValue(c.Noise))
	}
	h2.ui.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "new", Width: 64, Height: 64, Steps: 2, Seed: 1, Noise: engine.NoiseStable}})
	if form.NoiseValue(c.Noise) != engine.NoiseStable {
		t.Fatalf("an image with noise stable restored %q", form.NoiseValue(c.Noise))
	}
}
