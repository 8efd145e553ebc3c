package app

import "testing"

// TestPromptHistory: generated prompts are listed newest first and survive a restart.
// (Picking one from the button's menu is app/form's TestPromptHistoryMenu.)
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
}
