package form

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

func TestParseSide(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int
		want string
	}{
		{"512", 512, ""}, {" 64 ", 64, ""}, {"1792", 1792, ""},
		{"1800", 1800, "between 64 and 1792"}, {"48", 48, "between 64 and 1792"},
		{"100", 100, "multiple of 16: try 96 or 112"}, {"1.5", 0, "not a whole number"}, {"", 0, "empty"},
	} {
		v, msg := parseSide("Width", c.in)
		if v != c.v || (c.want == "") != (msg == "") || !strings.Contains(msg, c.want) {
			t.Errorf("parseSide(%q) = %d, %q; want %d, %q", c.in, v, msg, c.v, c.want)
		}
	}
}

// TestInvalidFieldsShowInline: each invalid field is refused with its own message beside
// it; a valid size selects its preset, and a preset sets the size. (That Generate starts
// nothing then, and no banner shows, is root app's TestInvalidSettingsAreRefused.)
func TestInvalidFieldsShowInline(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	fillValid(t, c, "anything")
	cases := []struct{ w, h, want string }{
		{"500", "512", "multiple of 16: try 496 or 512"},
		{"512", "2048", "between 64 and 1792"},
		{"32", "512", "between 64 and 1792"},
		{"abc", "512", "not a whole number"},
		{"", "512", "empty"},
	}
	for _, tc := range cases {
		c.Width.SetText(tc.w)
		c.Height.SetText(tc.h)
		if !c.SizeErr.Visible() || !strings.Contains(c.SizeErr.Text, tc.want) {
			t.Errorf("%s×%s: inline message %q (visible %v), want %q", tc.w, tc.h, c.SizeErr.Text, c.SizeErr.Visible(), tc.want)
		}
		if _, ok := c.ReadForm(); ok {
			t.Fatalf("%s×%s: the form was taken", tc.w, tc.h)
		}
	}
	c.Width.SetText("768")
	c.Height.SetText("1024")
	if c.SizeErr.Visible() || c.preset.Selected != "Portrait 3:4 · 768 × 1024" {
		t.Errorf("valid size: message %q, preset %q", c.SizeErr.Text, c.preset.Selected)
	}
	c.preset.SetSelected("Landscape 16:9 · 1024 × 576")
	if c.Width.Text != "1024" || c.Height.Text != "576" {
		t.Errorf("preset set %s×%s", c.Width.Text, c.Height.Text)
	}
	c.Steps.SetText("0")
	if _, ok := c.ReadForm(); ok || !c.stepsErr.Visible() {
		t.Errorf("steps 0 accepted")
	}
	c.Steps.SetText("4")
	c.Seed.SetText("-3")
	if _, ok := c.ReadForm(); ok || !c.seedErr.Visible() {
		t.Errorf("seed -3 accepted")
	}
	c.Seed.SetText("")
	c.Prompt.SetText("  ")
	if _, ok := c.ReadForm(); ok || !c.PromptErr.Visible() {
		t.Errorf("empty prompt accepted")
	}
}

// Issue 28 item 10: "Describe the image first." goes once a prompt is typed (the run's
// grid's "1 image" is run.TestImagesTextPlural).
func TestPromptMessageGoesAndPlural(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	c.Prompt.SetText("")
	if _, ok := c.ReadForm(); ok || !c.PromptErr.Visible() {
		t.Fatal("an empty prompt was taken")
	}
	test.Type(c.Prompt, "a lighthouse")
	if c.PromptErr.Visible() {
		t.Errorf("the message %q stays after typing a prompt", c.PromptErr.Text)
	}
}

// TestGuidanceNotClamped: an image made with a guidance above the slider's old 10 (the
// engine takes up to engine.MaxGuidance) is reused at its guidance, not silently at 10.
func TestGuidanceNotClamped(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	base := engine.ModelInfo{Name: "klein-4B", DefaultSteps: 50, DefaultGuidance: 4}
	c.Model = chosenModel{dir: "/models/base", info: base}
	c.ApplyVariant(base, true)
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", Guidance: 20, Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if c.guidance.Value != 20 || c.formSettings().Guidance != 20 {
		t.Errorf("guidance %v, remembered %v, want 20", c.guidance.Value, c.formSettings().Guidance)
	}
	if c.guidance.Min != engine.MinGuidance || c.guidance.Max != engine.MaxGuidance {
		t.Errorf("slider %v..%v, want the engine's %v..%v", c.guidance.Min, c.guidance.Max, engine.MinGuidance, engine.MaxGuidance)
	}
}

// TestNoiseChoice: the noise menu is torch-compatible by default, its choice is what the
// form gives a run and what it remembers, the remembered choice comes back into a new
// form, and an image's metadata restores it (no noise key: torch). (That the choice
// reaches the generator and survives a restart of the window is root app's
// TestNoiseReachesTheRequest.)
func TestNoiseChoice(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	fillValid(t, c, "a lighthouse")
	if f, ok := c.ReadForm(); !ok || f.Noise != engine.NoiseTorch || noiseValue(c.noise) != engine.NoiseTorch {
		t.Fatalf("default noise %q (menu %q, ok %v), want %q", f.Noise, noiseValue(c.noise), ok, engine.NoiseTorch)
	}
	c.noise.SetSelectedIndex(1)
	if f, ok := c.ReadForm(); !ok || f.Noise != engine.NoiseStable {
		t.Fatalf("noise %q after choosing size-stable (ok %v), want %q", f.Noise, ok, engine.NoiseStable)
	}
	saved := c.formSettings()
	if saved.Noise != engine.NoiseStable {
		t.Fatalf("remembered noise %q, want %q", saved.Noise, engine.NoiseStable)
	}

	c2, _, _ := testControls(t, fyne.NewSize(1000, 900))
	c2.ApplySettings(saved)
	if noiseValue(c2.noise) != engine.NoiseStable {
		t.Fatalf("the remembered noise came back as %q", noiseValue(c2.noise))
	}
	c2.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if noiseValue(c2.noise) != engine.NoiseTorch {
		t.Fatalf("an image without a noise key restored noise %q", noiseValue(c2.noise))
	}
	c2.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "new", Width: 64, Height: 64, Steps: 2, Seed: 1, Noise: engine.NoiseStable}})
	if noiseValue(c2.noise) != engine.NoiseStable {
		t.Fatalf("an image with noise stable restored %q", noiseValue(c2.noise))
	}
}

// TestNegativePromptInTheForm: on a base model the negative prompt shows beside the
// guidance, trimmed into the run's settings and remembered as typed, and an image's
// metadata restores it; a distilled model hides it and gives none. (That it reaches the
// request and survives a restart is root app's TestNegativePromptField and
// TestFormRemembersNegativePrompt.)
func TestNegativePromptInTheForm(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	base := engine.ModelInfo{Name: "klein-4B", DefaultSteps: 50, DefaultGuidance: 4}
	c.Model = chosenModel{dir: "/models/base", info: base}
	c.ApplyVariant(base, true)
	fillValid(t, c, "a lighthouse")
	if !c.GuidanceBox.Visible() {
		t.Fatal("base model: the guidance and negative prompt are hidden")
	}
	c.Negative.SetText("  blurry, text ")
	if f, ok := c.ReadForm(); !ok || f.NegativePrompt != "blurry, text" {
		t.Fatalf("negative prompt %q (ok %v), want %q", f.NegativePrompt, ok, "blurry, text")
	}
	if got := c.formSettings().NegativePrompt; got != "blurry, text" {
		t.Errorf("remembered negative prompt %q", got)
	}
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", NegativePrompt: "fog", Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if c.Negative.Text != "fog" {
		t.Fatalf("restored negative prompt %q, want fog", c.Negative.Text)
	}

	distilled := engine.ModelInfo{Name: "klein-4B", Distilled: true, DefaultSteps: 4, DefaultGuidance: 1}
	c.Model = chosenModel{dir: "/models/distilled", info: distilled}
	c.ApplyVariant(distilled, true)
	c.Negative.SetText("ignored")
	if f, _ := c.ReadForm(); c.GuidanceBox.Visible() || f.NegativePrompt != "" {
		t.Errorf("distilled model: negative prompt shown %v, given %q", c.GuidanceBox.Visible(), f.NegativePrompt)
	}
}
