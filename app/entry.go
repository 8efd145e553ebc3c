package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// isGenerateShortcut reports whether s is Ctrl+Enter or Cmd+Enter.
func isGenerateShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || (cs.KeyName != fyne.KeyReturn && cs.KeyName != fyne.KeyEnter) {
		return false
	}
	return cs.Modifier == fyne.KeyModifierControl || cs.Modifier == fyne.KeyModifierSuper
}

// generateShortcuts are the shortcuts that start a generation when no entry has the focus.
func generateShortcuts() []fyne.Shortcut {
	var out []fyne.Shortcut
	for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter} {
		for _, m := range []fyne.KeyModifier{fyne.KeyModifierControl, fyne.KeyModifierSuper} {
			out = append(out, &desktop.CustomShortcut{KeyName: k, Modifier: m})
		}
	}
	return out
}

// shortcutEntry is an Entry on which Ctrl/Cmd+Enter generates: a focused entry receives
// every shortcut, so the window-wide shortcut would never fire while typing.
type shortcutEntry struct {
	widget.Entry
	onGenerate func()
}

func newShortcutEntry(multiLine bool, onGenerate func()) *shortcutEntry {
	e := &shortcutEntry{onGenerate: onGenerate}
	e.MultiLine = multiLine
	if multiLine {
		e.Wrapping = fyne.TextWrapWord
	}
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut runs the generate action on Ctrl/Cmd+Enter and passes the rest on. Before a
// paste into a multi-line entry it stops word wrapping when the pasted text holds a long
// paragraph (see fieldWrapping).
func (e *shortcutEntry) TypedShortcut(s fyne.Shortcut) {
	if isGenerateShortcut(s) && e.onGenerate != nil {
		e.onGenerate()
		return
	}
	if p, ok := s.(*fyne.ShortcutPaste); ok && e.MultiLine && p.Clipboard != nil {
		// The paste lands inside the current text: judge the worst case, both joined.
		e.unwrapFor(e.Text + p.Clipboard.Content())
	}
	e.Entry.TypedShortcut(s)
	e.adaptWrapping(e.Text)
}

// SetText replaces the text and picks a multi-line entry's wrapping for it.
func (e *shortcutEntry) SetText(text string) {
	e.unwrapFor(text)
	e.Entry.SetText(text)
	e.adaptWrapping(e.Text)
}

// TypedRune inserts a typed character and stops word wrapping when the paragraph grows long.
func (e *shortcutEntry) TypedRune(r rune) {
	e.Entry.TypedRune(r)
	e.adaptWrapping(e.Text)
}

// TypedKey handles a key (deletions may make word wrapping affordable again).
func (e *shortcutEntry) TypedKey(k *fyne.KeyEvent) {
	e.Entry.TypedKey(k)
	e.adaptWrapping(e.Text)
}

// unwrapFor turns word wrapping off before a multi-line entry takes text that is too long
// to wrap. Turning it on waits for adaptWrapping after the change: wrapping the old, long
// text would cost what this avoids.
func (e *shortcutEntry) unwrapFor(text string) {
	if e.MultiLine && e.Wrapping != fyne.TextWrapOff && fieldWrapping(text) == fyne.TextWrapOff {
		e.Wrapping = fyne.TextWrapOff // the text change that follows lays the entry out again
	}
}

// adaptWrapping sets a multi-line entry's wrapping for its current text (see fieldWrapping).
func (e *shortcutEntry) adaptWrapping(text string) {
	if !e.MultiLine {
		return
	}
	if w := fieldWrapping(text); w != e.Wrapping {
		e.Wrapping = w
		e.Refresh()
	}
}
