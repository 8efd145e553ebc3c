package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// wrapPrompt is the prompt in which the new user lost a space (issue 36 item 4).
const wrapPrompt = "a digital matte painting of a castle on a hill at dawn"

// typeAtWidth types text into a word-wrapping prompt entry w px wide.
func typeAtWidth(a fyne.App, w float32, text string) (*ShortcutEntry, fyne.Window) {
	e := NewShortcutEntry(true, nil)
	win := a.NewWindow("prompt")
	win.SetContent(e)
	win.Resize(fyne.NewSize(w, 200))
	e.Resize(fyne.NewSize(w, 200))
	test.Type(e, text)
	return e, win
}

// Issue 36 item 4: a space typed exactly where the prompt wraps was lost ("…matte painting
// of a…" became "…matte paintingof…" with the space at the end). Fyne's Entry clamps the
// cursor after such a space to before it; at every width the typed text is kept.
func TestSpaceAtTheWrapKept(t *testing.T) {
	a := test.NewTempApp(t)
	for w := float32(80); w < 260; w += 3 {
		e, win := typeAtWidth(a, w, wrapPrompt)
		if e.Text != wrapPrompt {
			t.Errorf("%v px wide: typed %q, the entry holds %q", w, wrapPrompt, e.Text)
		}
		win.Close()
	}
}

// Backspace after a space at the wrap deletes that space, not the letter before it.
func TestBackspaceAfterTheWrapSpace(t *testing.T) {
	a := test.NewTempApp(t)
	for w := float32(80); w < 260; w += 3 {
		e, win := typeAtWidth(a, w, wrapPrompt[:36]+" ")
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
		if e.Text != wrapPrompt[:36] {
			t.Errorf("%v px wide: %q after a backspace", w, e.Text)
		}
		win.Close()
	}
}
