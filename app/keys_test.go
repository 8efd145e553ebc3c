package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// typeKey types a key on canvas c as the window does: to the focused widget when there is
// one, else to the canvas.
func typeKey(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

// TestCtrlQFromEveryField: Ctrl+Q asks to quit (here: closes, nothing runs) also while a
// text field has the focus (issue 36 item 5: it did nothing from the prompt, size, seed or
// search field: a focused entry takes every shortcut).
func TestCtrlQFromEveryField(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	closed := 0
	u.closeWindow = func() { closed++ }
	c := h.win.Canvas()
	for _, f := range []struct {
		name string
		e    fyne.Focusable
	}{
		{"prompt", u.ctl.prompt}, {"width", u.ctl.width},
		{"height", u.ctl.height}, {"steps", u.ctl.steps}, {"seed", u.ctl.seed},
		{"gallery search", u.gal.search},
	} {
		c.Focus(f.e)
		if c.Focused() != f.e {
			t.Fatalf("%s: cannot take the focus", f.name)
		}
		before := closed
		typeShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault})
		if closed != before+1 {
			t.Errorf("Ctrl+Q in the %s field did not quit", f.name)
		}
	}
	c.Focus(u.ctl.seed)
	typeShortcut(c, &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault})
	if c.Focused() != u.ctl.prompt {
		t.Errorf("Ctrl+L in the seed field left the focus on %T", c.Focused())
	}
}
