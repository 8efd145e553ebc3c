package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// longPrompt is one paragraph of n bytes.
func longPrompt(n int) string {
	return strings.Repeat("a red cube on a blue table, ", n/28+1)[:n]
}

// TestRestoreLongPrompt restores a 64 KB one-paragraph prompt. Fyne's word wrapping measures
// the rest of a paragraph for every row it breaks (quadratic: 64 KB took over two minutes),
// so the field must not word-wrap such a paragraph; a prompt beyond engine.MaxPromptBytes
// (up to the metadata reader's 16 MB) is refused with a notice instead of filling the field.
func TestRestoreLongPrompt(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui
	c := &u.ctl

	long := longPrompt(engine.MaxPromptBytes)
	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: long, Width: 256, Height: 256, Steps: 4, Seed: 7}})
	if c.Prompt.Text != long {
		t.Fatalf("restored prompt has %d bytes, want %d", len(c.Prompt.Text), len(long))
	}
	if c.Prompt.Wrapping != fyne.TextWrapOff {
		t.Errorf("a %d-byte paragraph is word-wrapped (quadratic in Fyne)", len(long))
	}

	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "a castle\non a hill", Width: 256, Height: 256, Steps: 4, Seed: 8}})
	if c.Prompt.Text != "a castle\non a hill" || c.Prompt.Wrapping != fyne.TextWrapWord {
		t.Errorf("short prompt: %q, wrapping %v; want word wrapping back", c.Prompt.Text, c.Prompt.Wrapping)
	}

	// A few paragraphs wrap; many do not (each costs the square of its length).
	few := strings.Repeat(longPrompt(300)+"\n", 5)
	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: few, Width: 256, Height: 256, Steps: 4, Seed: 9}})
	if c.Prompt.Text != few || c.Prompt.Wrapping != fyne.TextWrapWord {
		t.Errorf("5 paragraphs of 300 bytes are not wrapped")
	}
	lines := strings.Repeat(longPrompt(200)+"\n", 300)
	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: lines, Width: 256, Height: 256, Steps: 4, Seed: 9}})
	if c.Prompt.Text != lines || c.Prompt.Wrapping != fyne.TextWrapOff {
		t.Errorf("300 paragraphs of 200 bytes are wrapped")
	}

	huge := longPrompt(16 << 20)
	u.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: huge, Width: 512, Height: 512, Steps: 3, Seed: 10}})
	if c.Prompt.Text != lines {
		t.Errorf("a 16 MB prompt replaced the field (%d bytes)", len(c.Prompt.Text))
	}
	if c.Seed.Text != "10" || c.Steps.Text != "3" {
		t.Errorf("other settings not restored with a refused prompt: seed %q, steps %q", c.Seed.Text, c.Steps.Text)
	}
	if !strings.Contains(u.ErrorText(), "prompt") {
		t.Errorf("refused prompt not reported: %q", u.ErrorText())
	}
}

// TestPastedLongPromptIsNotWrapped pastes a long paragraph: the field stops wrapping first.
func TestPastedLongPromptIsNotWrapped(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	c := &h.ui.ctl
	c.Prompt.SetText("")
	cb := fyne.CurrentApp().Clipboard()
	cb.SetContent(longPrompt(32 << 10))
	c.Prompt.TypedShortcut(&fyne.ShortcutPaste{Clipboard: cb})
	if len(c.Prompt.Text) != 32<<10 || c.Prompt.Wrapping != fyne.TextWrapOff {
		t.Errorf("pasted %d bytes, wrapping %v", len(c.Prompt.Text), c.Prompt.Wrapping)
	}
	c.Prompt.SetText("")
	c.Prompt.SetText("short")
	if c.Prompt.Wrapping != fyne.TextWrapWord {
		t.Errorf("emptied field does not wrap again")
	}
}

// BenchmarkPromptField puts a 64 KB one-paragraph prompt into the prompt field (with word
// wrapping this took over two minutes).
func BenchmarkPromptField(b *testing.B) {
	a := test.NewTempApp(b)
	w := a.NewWindow("bench")
	e := widgets.NewShortcutEntry(true, nil)
	w.SetContent(e)
	w.Resize(fyne.NewSize(400, 300))
	long := longPrompt(engine.MaxPromptBytes)
	for b.Loop() {
		e.SetText("")
		e.SetText(long)
	}
}
