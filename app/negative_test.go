package app

import (
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
	"kleinbild/weights/golden"
)

// TestNegativePromptField: on a base model the form's negative prompt (beside the
// guidance) reaches the request, survives a restart and is restored from an image's
// metadata; a distilled model sends none. (That it shows on a base model only is app/form's
// TestNegativePromptInTheForm.)
func TestNegativePromptField(t *testing.T) {
	data, model := t.TempDir(), golden.TinyBaseModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	u := h.ui
	u.ctl.Width.SetText("64")
	u.ctl.Height.SetText("64")
	u.ctl.Negative.SetText("  blurry, text ")
	if out := h.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().NegativePrompt; got != "blurry, text" {
		t.Fatalf("request negative prompt %q, want %q", got, "blurry, text")
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	c := &h2.ui.ctl
	if c.Negative.Text != "blurry, text" {
		t.Fatalf("after a restart the negative prompt is %q", c.Negative.Text)
	}
	h2.ui.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "old", NegativePrompt: "fog", Width: 64, Height: 64, Steps: 2, Seed: 1}})
	if c.Negative.Text != "fog" {
		t.Fatalf("restored negative prompt %q, want fog", c.Negative.Text)
	}
	h2.close()

	h3 := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	h3.ui.ctl.Negative.SetText("ignored")
	h3.ui.ctl.Width.SetText("64")
	h3.ui.ctl.Height.SetText("64")
	if out := h3.generate("a lighthouse"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.lastRequest().NegativePrompt; got != "" {
		t.Errorf("distilled model: negative prompt sent %q", got)
	}
}

// TestFormRemembersNegativePrompt: the negative prompt is remembered as it is typed, like
// the prompt, without a run (c20726f's remembered form left it out: it came back empty
// unless a generation had saved it).
func TestFormRemembersNegativePrompt(t *testing.T) {
	data, model := t.TempDir(), golden.TinyBaseModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	h.ui.ctl.Prompt.SetText("a harbour")
	h.ui.ctl.Negative.SetText("smoke")
	h.close()
	h2 := newHarness(t, data, model, fake.open)
	defer h2.close()
	if c := &h2.ui.ctl; c.Prompt.Text != "a harbour" || c.Negative.Text != "smoke" {
		t.Errorf("after a restart: prompt %q, negative prompt %q", c.Prompt.Text, c.Negative.Text)
	}
}
