package app

import (
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// TestNoiseReachesTheRequest: the form's noise reaches the request (torch-compatible by
// default), and a size-stable noise survives a restart of the window. (The menu, its
// remembering and restoring are app/form's TestNoiseChoice.)
func TestNoiseReachesTheRequest(t *testing.T) {
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
	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", Width: 64, Height: 64, Steps: 2, Seed: 1, Noise: engine.NoiseStable}})
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseStable {
		t.Fatalf("noise %q after restoring size-stable, want %q", got, engine.NoiseStable)
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	if out := h2.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().Noise; got != engine.NoiseStable {
		t.Fatalf("after a restart the noise is %q", got)
	}
}
