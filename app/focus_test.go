package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// typeShortcut sends s as the window does: to the focused widget when it takes shortcuts,
// else to the window's own shortcuts.
func typeShortcut(c fyne.Canvas, s fyne.Shortcut) {
	if f, ok := c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	c.(fyne.Shortcutable).TypedShortcut(s)
}

// Issue 28 item 5: search, click a thumbnail, delete, Ctrl+Z brings the image back (it
// restored the old search text: the search field kept the focus); also after Delete on the
// toolbar while the search field has the focus.
func TestUndoDeleteFromAnywhere(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a red castle", "a blue sea", "a green forest")
	u := h.ui
	c := h.win.Canvas()
	c.Focus(u.gal.Search)
	test.Type(u.gal.Search, "a")
	u.gal.Search.SetText("")
	u.gal.CellTapped("img-01.png")
	if c.Focused() != nil {
		t.Fatalf("a click on a thumbnail left the focus on %T", c.Focused())
	}
	h.settle()
	key(c, fyne.KeyDelete)
	h.waitFor("the image to go", 5*time.Second, func() bool { return len(u.gal.Visible) == 2 })
	typeShortcut(c, &fyne.ShortcutUndo{})
	h.waitFor("Ctrl+Z to bring it back", 5*time.Second, func() bool { return len(u.gal.Visible) == 3 })

	c.Focus(u.gal.Search)
	u.gal.SelectEntry("img-00.png", nil)
	h.settle()
	test.Tap(u.view.DeleteBtn)
	h.waitFor("the image to go", 5*time.Second, func() bool { return len(u.gal.Visible) == 2 })
	typeShortcut(c, &fyne.ShortcutUndo{})
	h.waitFor("Ctrl+Z to bring it back", 5*time.Second, func() bool { return len(u.gal.Visible) == 3 })
	if u.gal.Search.Text != "" {
		t.Errorf("the search became %q", u.gal.Search.Text)
	}
}

// Issue 28 item 10: with several images checked, the Delete key deletes them all (it
// deleted only the viewed one); one Undo brings them back.
func TestDeleteKeyDeletesTheSelection(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "p0", "p1", "p2", "p3")
	u := h.ui
	u.gal.SelectEntry("img-03.png", nil)
	h.settle()
	u.gal.SetSelecting(true)
	u.gal.SelectAll()
	key(h.win.Canvas(), fyne.KeyDelete)
	h.waitFor("all four to go", 5*time.Second, func() bool { return len(u.gal.Visible) == 0 })
	typeShortcut(h.win.Canvas(), &fyne.ShortcutUndo{})
	h.waitFor("all four back", 5*time.Second, func() bool { return len(u.gal.Visible) == 4 })
}

// Issue 28 item 10: Ctrl+L puts the cursor in the prompt from anywhere (the search field
// too), at the end of its text, and Tab goes from the prompt through the form: Seed is a few Tabs away (about 30
// Tabs reached it).
func TestPromptShortcutAndTabOrder(t *testing.T) {
	h := galleryHarness(t, t.TempDir(), "a red castle")
	u := h.ui
	c := h.win.Canvas()
	ctrlL := &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}
	c.Focus(u.gal.Search)
	typeShortcut(c, ctrlL)
	if c.Focused() != u.ctl.Prompt {
		t.Fatalf("Ctrl+L in the search field focused %T", c.Focused())
	}
	c.Unfocus()
	// A prompt set by the program (restored, reused) has its cursor at the start: typing
	// after Ctrl+L goes on from its end (this session's real-window pass typed "and a boat"
	// in front of the prompt).
	u.ctl.Prompt.SetText("a red castle,\nat dusk")
	typeShortcut(c, ctrlL)
	if c.Focused() != u.ctl.Prompt {
		t.Fatalf("Ctrl+L focused %T", c.Focused())
	}
	test.Type(u.ctl.Prompt, " and a boat")
	if got := u.ctl.Prompt.Text; got != "a red castle,\nat dusk and a boat" {
		t.Errorf("typed after Ctrl+L: the prompt reads %q", got)
	}
	tabs := 0
	for c.Focused() != u.ctl.Seed && tabs < 40 {
		c.FocusNext()
		tabs++
	}
	if tabs > 12 {
		t.Errorf("%d Tabs from the prompt to Seed", tabs)
	}
	c.Unfocus()
	c.FocusNext()
	if f := c.Focused(); f != u.ctl.Prompt && f != u.ctl.History.Button {
		t.Errorf("the first Tab focuses %T, not the prompt", f)
	}
}
