package app

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/recentprompts"
)

// TestPromptHistory: generated prompts are listed newest first, survive a restart, and
// picking one from the button's menu puts it back in the prompt field.
func TestPromptHistory(t *testing.T) {
	data, model := t.TempDir(), tinyModel(t)
	fake := newFakeGen()
	h := newHarness(t, data, model, fake.open)
	h.ui.ctl.SetSize(64, 64)
	for _, p := range []string{"a red fox", "a grey wolf", "a red fox"} {
		if out := h.generate(p); out.Err != nil {
			t.Fatal(out.Err)
		}
	}
	h.close()

	h2 := newHarness(t, data, model, fake.open)
	c := &h2.ui.ctl
	items := c.History.Items().Items
	if len(items) != 2 || items[0].Label != "a red fox" || items[1].Label != "a grey wolf" {
		t.Fatalf("history after restart: %v", items)
	}
	c.Prompt.SetText("something else")
	b := findTipButton(c.Box, recentprompts.Tip)
	if b == nil {
		t.Fatal("no recent prompts button")
	}
	test.Tap(b)
	if c.History.Menu == nil || !c.History.Menu.Visible() {
		t.Fatal("the recent prompts menu did not open")
	}
	items[1].Action()
	if c.Prompt.Text != "a grey wolf" {
		t.Fatalf("picked a grey wolf, the prompt is %q", c.Prompt.Text)
	}
}
