package form

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
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	withBanner(c)

	long := longPrompt(engine.MaxPromptBytes)
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: long, Width: 256, Height: 256, Steps: 4, Seed: 7}})
	if c.Prompt.Text != long {
		t.Fatalf("restored prompt has %d bytes, want %d", len(c.Prompt.Text), len(long))
	}
	if c.Prompt.Wrapping != fyne.TextWrapOff {
		t.Errorf("a %d-byte paragraph is word-wrapped (quadratic in Fyne)", len(long))
	}

	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: "a castle\non a hill", Width: 256, Height: 256, Steps: 4, Seed: 8}})
	if c.Prompt.Text != "a castle\non a hill" || c.Prompt.Wrapping != fyne.TextWrapWord {
		t.Errorf("short prompt: %q, wrapping %v; want word wrapping back", c.Prompt.Text, c.Prompt.Wrapping)
	}

	// A few paragraphs wrap; many do not (each costs the square of its length).
	few := strings.Repeat(longPrompt(300)+"\n", 5)
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: few, Width: 256, Height: 256, Steps: 4, Seed: 9}})
	if c.Prompt.Text != few || c.Prompt.Wrapping != fyne.TextWrapWord {
		t.Errorf("5 paragraphs of 300 bytes are not wrapped")
	}
	lines := strings.Repeat(longPrompt(200)+"\n", 300)
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: lines, Width: 256, Height: 256, Steps: 4, Seed: 9}})
	if c.Prompt.Text != lines || c.Prompt.Wrapping != fyne.TextWrapOff {
		t.Errorf("300 paragraphs of 200 bytes are wrapped")
	}

	huge := longPrompt(16 << 20)
	c.RestoreSettings(imageio.Metadata{Settings: schema.Settings{Prompt: huge, Width: 512, Height: 512, Steps: 3, Seed: 10}})
	if c.Prompt.Text != lines {
		t.Errorf("a 16 MB prompt replaced the field (%d bytes)", len(c.Prompt.Text))
	}
	if c.Seed.Text != "10" || c.Steps.Text != "3" {
		t.Errorf("other settings not restored with a refused prompt: seed %q, steps %q", c.Seed.Text, c.Steps.Text)
	}
	if !strings.Contains(c.sh.ErrorText(), "prompt") {
		t.Errorf("refused prompt not reported: %q", c.sh.ErrorText())
	}
}

// TestPastedLongPromptIsNotWrapped pastes a long paragraph: the field stops wrapping first.
func TestPastedLongPromptIsNotWrapped(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
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

// textClipboard is a clipboard holding s.
type textClipboard struct{ s string }

func (c *textClipboard) Content() string     { return c.s }
func (c *textClipboard) SetContent(s string) { c.s = s }

// Issue 22 item 9: Tab in the prompt moves the focus, and the prompt never holds a tab.
func TestPromptTabMovesFocus(t *testing.T) {
	c, _, w := testControls(t, fyne.NewSize(1000, 900))
	p := c.Prompt
	if p.AcceptsTab() {
		t.Error("the prompt takes Tab: it would insert tabs instead of moving the focus")
	}
	cv := w.Canvas()
	cv.Focus(p)
	test.Type(p, "a cat")
	p.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	p.TypedRune('\t')
	if strings.Contains(p.Text, "\t") {
		t.Errorf("prompt %q holds a tab", p.Text)
	}
	if cv.Focused() == p {
		t.Error("Tab left the focus in the prompt")
	}
	p.SetText("a\tdog\t\t")
	if strings.Contains(p.Text, "\t") {
		t.Errorf("SetText kept tabs: %q", p.Text)
	}
	p.TypedShortcut(&fyne.ShortcutPaste{Clipboard: &textClipboard{"x\ty"}})
	if strings.Contains(p.Text, "\t") {
		t.Errorf("paste kept tabs: %q", p.Text)
	}
}

// Issue 22 item 9: the wheel keeps scrolling the form while the pointer passes over a
// field; the multi-line prompt scrolls itself only while it can. (The Adapters section's
// fields at the form's end are root app's TestWheelOverFieldsScrollsForm.)
func TestWheelOverFieldsScrollsForm(t *testing.T) {
	c, _, w := testControls(t, fyne.NewSize(1000, 320)) // the form is taller than its room
	s := c.Scroll
	if s.Content.MinSize().Height <= s.Size().Height {
		t.Fatalf("the form (%v) fits its room (%v): nothing to scroll", s.Content.MinSize(), s.Size())
	}
	for _, f := range []struct {
		name string
		e    *widgets.ShortcutEntry
	}{{"prompt", c.Prompt}, {"steps", c.Steps}, {"width", c.Width}} {
		s.ScrollToTop()
		wheelOver(w, f.e, -30)
		if s.Offset.Y <= 0 {
			t.Errorf("the wheel over the %s field did not scroll the form", f.name)
		}
	}

	// A prompt longer than its field scrolls itself first, then hands the wheel on.
	s.ScrollToTop()
	c.Prompt.SetText(strings.Repeat("a line of the prompt\n", 40))
	relayout(w.Canvas().Content())
	wheelOver(w, c.Prompt, -30)
	if s.Offset.Y != 0 {
		t.Errorf("the form scrolled (%v) while the long prompt could scroll", s.Offset.Y)
	}
	for range 100 {
		wheelOver(w, c.Prompt, -60)
	}
	if s.Offset.Y <= 0 {
		t.Error("at the prompt's end the wheel did not scroll the form")
	}
}
