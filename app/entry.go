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

// TypedShortcut runs the generate action on Ctrl/Cmd+Enter and passes the rest on.
func (e *shortcutEntry) TypedShortcut(s fyne.Shortcut) {
	if isGenerateShortcut(s) && e.onGenerate != nil {
		e.onGenerate()
		return
	}
	e.Entry.TypedShortcut(s)
}
