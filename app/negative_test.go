package app

import (
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/weights/golden"
)

// TestNegativePromptField: on a base model the form's negative prompt (beside the
// guidance) reaches the request, survives a restart and is restored from an image's
// metadata; a distilled model hides it and sends none.
func TestNegativePromptField(t *testing.T) {
	data, model := t.TempDir(), golden.TinyBaseModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	u := h.ui
	if !u.ctl.guidanceBox.Visible() {
		t.Fatal("base model: the guidance and negative prompt are hidden")
	}
	u.ctl.width.SetText("64")
	u.ctl.height.SetText("64")
	u.ctl.negative.SetText("  blurry, text ")
	if out := h.generate("a lighthouse"); out.err != nil {
		t.Fatal(out.err)
	}
	if got := fake.lastRequest().NegativePrompt; got != "blurry, text" {
		t.Fatalf("request negative prompt %q, want %q", got, "blurry, text")
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	c := &h2.ui.ctl
	if c.negative.Text != "blurry, text" {
		t.Fatalf("after a restart the negative prompt is %q", c.negative.Text)
	}
	h2.ui.RestoreSettings(imageio.Metadata{Prompt: "old", NegativePrompt: "fog", Width: 64, Height: 64, Steps: 2, Seed: 1})
	if c.negative.Text != "fog" {
		t.Fatalf("restored negative prompt %q, want fog", c.negative.Text)
	}
	h2.close()

	h3 := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	h3.ui.ctl.negative.SetText("ignored")
	h3.ui.ctl.width.SetText("64")
	h3.ui.ctl.height.SetText("64")
	if out := h3.generate("a lighthouse"); out.err != nil {
		t.Fatal(out.err)
	}
	if h3.ui.ctl.guidanceBox.Visible() || fake.lastRequest().NegativePrompt != "" {
		t.Errorf("distilled model: negative prompt shown %v, sent %q", h3.ui.ctl.guidanceBox.Visible(), fake.lastRequest().NegativePrompt)
	}
}
