package form

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"kleinbild/app/recentprompts"
)

// TestPromptHistoryMenu: the prompts run are listed newest first, once each, and picking
// one from the button's menu puts it back in the prompt field. (That a generation adds its
// prompt, and the list survives a restart, is root app's TestPromptHistory.)
func TestPromptHistoryMenu(t *testing.T) {
	c, _, _ := testControls(t, fyne.NewSize(1000, 900))
	for _, p := range []string{"a red fox", "a grey wolf", "a red fox"} {
		c.AddToHistory(p)
	}
	items := c.History.Items().Items
	if len(items) != 2 || items[0].Label != "a red fox" || items[1].Label != "a grey wolf" {
		t.Fatalf("history: %v", items)
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
