package widgets

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// IsGenerateShortcut reports whether s is Ctrl+Enter or Cmd+Enter.
func IsGenerateShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || (cs.KeyName != fyne.KeyReturn && cs.KeyName != fyne.KeyEnter) {
		return false
	}
	return cs.Modifier == fyne.KeyModifierControl || cs.Modifier == fyne.KeyModifierSuper
}

// GenerateShortcuts are the shortcuts that start a generation when no entry has the focus.
func GenerateShortcuts() []fyne.Shortcut {
	var out []fyne.Shortcut
	for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter} {
		for _, m := range []fyne.KeyModifier{fyne.KeyModifierControl, fyne.KeyModifierSuper} {
			out = append(out, &desktop.CustomShortcut{KeyName: k, Modifier: m})
		}
	}
	return out
}

// ShortcutEntry is an Entry on which Ctrl/Cmd+Enter generates: a focused entry receives
// every shortcut, so the window-wide shortcut would never fire while typing.
//
// It never takes Tab (Tab and Shift+Tab move the focus; text it is given has its tabs
// turned into spaces), and the mouse wheel over it scrolls the form it sits in (see
// PassScrollTo) unless it is a multi-line entry that can itself scroll that way.
type ShortcutEntry struct {
	widget.Entry
	onGenerate func()
	// PassOn, when set, is offered the custom shortcuts first (window-wide ones such as
	// Ctrl+L, which a focused entry would swallow); it reports whether it took one.
	PassOn func(*desktop.CustomShortcut) bool
	// OnFocus, when set, runs when the entry gains the keyboard focus (the form scrolls
	// it into view).
	OnFocus  func()
	scrollTo fyne.Scrollable
	render   *passRenderer
	// lost is the cursor's text offset that Fyne could not show, with the text it was lost
	// in (see keepCursor); lost is 0 when none was.
	lost     int
	lostText string
}

func NewShortcutEntry(multiLine bool, onGenerate func()) *ShortcutEntry {
	e := &ShortcutEntry{onGenerate: onGenerate}
	e.MultiLine = multiLine
	if multiLine {
		e.Wrapping = fyne.TextWrapWord
	}
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut runs the generate action on Ctrl/Cmd+Enter and passes the rest on. Before a
// paste into a multi-line entry it stops word wrapping when the pasted text holds a long
// paragraph (see FieldWrapping).
func (e *ShortcutEntry) TypedShortcut(s fyne.Shortcut) {
	if IsGenerateShortcut(s) && e.onGenerate != nil {
		e.onGenerate()
		return
	}
	if cs, ok := s.(*desktop.CustomShortcut); ok && e.PassOn != nil && e.PassOn(cs) {
		return
	}
	if p, ok := s.(*fyne.ShortcutPaste); ok && e.MultiLine && p.Clipboard != nil {
		// The paste lands inside the current text: judge the worst case, both joined.
		e.unwrapFor(e.Text + p.Clipboard.Content())
	}
	if _, ok := s.(*fyne.ShortcutPaste); ok {
		e.keepCursor()
	}
	e.Entry.TypedShortcut(s)
	if strings.ContainsRune(e.Text, '\t') { // pasted tabs
		row, col := e.CursorRow, e.CursorColumn
		e.Entry.SetText(NoTabs(e.Text))
		e.CursorRow, e.CursorColumn = row, col
		e.Refresh()
	}
	e.adaptWrapping(e.Text)
}

// SetText replaces the text and picks a multi-line entry's wrapping for it.
func (e *ShortcutEntry) SetText(text string) {
	text = NoTabs(text)
	e.unwrapFor(text)
	e.Entry.SetText(text)
	e.adaptWrapping(e.Text)
}

// TypedRune inserts a typed character and stops word wrapping when the paragraph grows long.
func (e *ShortcutEntry) TypedRune(r rune) {
	if r == '\t' {
		return
	}
	e.keepCursor()
	want := e.CursorTextOffset() + 1
	selected := e.SelectedText() != ""
	e.Entry.TypedRune(r)
	e.noteCursor(want, selected)
	e.adaptWrapping(e.Text)
}

// keepCursor puts the cursor back where the last typed rune left it when Fyne could not
// show that place. A space typed where a word-wrapped line breaks is in no row of Fyne's
// Entry (v2.7.1): the cursor after it is clamped to before it, so the next rune went before
// the space ("painting of" became "paintingof "; issue 36 item 4). The cursor's column past
// its row's end still names the right text offset.
func (e *ShortcutEntry) keepCursor() {
	if e.lost > 0 && e.Text == e.lostText && e.SelectedText() == "" && e.CursorTextOffset() == e.lost-1 {
		e.CursorColumn++
	}
	e.lost, e.lostText = 0, ""
}

// noteCursor remembers that the cursor should be at the text offset want (after typing
// with no selection) when Fyne's cursor is not there.
func (e *ShortcutEntry) noteCursor(want int, selected bool) {
	if !selected && e.CursorTextOffset() == want-1 {
		e.lost, e.lostText = want, e.Text
	}
}

// TypedKey handles a key (deletions may make word wrapping affordable again).
func (e *ShortcutEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyTab { // drivers that hand Tab over anyway: move on
		if c := fyne.CurrentApp().Driver().CanvasForObject(e); c != nil {
			c.FocusNext()
		}
		return
	}
	e.keepCursor()
	e.Entry.TypedKey(k)
	e.adaptWrapping(e.Text)
}

// unwrapFor turns word wrapping off before a multi-line entry takes text that is too long
// to wrap. Turning it on waits for adaptWrapping after the change: wrapping the old, long
// text would cost what this avoids.
func (e *ShortcutEntry) unwrapFor(text string) {
	if e.MultiLine && e.Wrapping != fyne.TextWrapOff && FieldWrapping(text) == fyne.TextWrapOff {
		e.Wrapping = fyne.TextWrapOff // the text change that follows lays the entry out again
	}
}

// adaptWrapping sets a multi-line entry's wrapping for its current text (see FieldWrapping).
func (e *ShortcutEntry) adaptWrapping(text string) {
	if !e.MultiLine {
		return
	}
	if w := FieldWrapping(text); w != e.Wrapping {
		e.Wrapping = w
		e.Refresh()
	}
}

// FocusGained implements fyne.Focusable: it runs OnFocus after the Entry's own.
func (e *ShortcutEntry) FocusGained() {
	e.Entry.FocusGained()
	if e.OnFocus != nil {
		e.OnFocus()
	}
}

// AcceptsTab implements fyne.Tabbable: Tab moves the focus, also out of a multi-line entry.
func (e *ShortcutEntry) AcceptsTab() bool { return false }

// NoTabs turns the tabs in s into spaces.
func NoTabs(s string) string { return strings.ReplaceAll(s, "\t", " ") }

// PassScrollTo makes the mouse wheel over the entry scroll s (the form around it). A
// multi-line entry still scrolls itself first while it can.
func (e *ShortcutEntry) PassScrollTo(s fyne.Scrollable) { e.scrollTo = s }

// CreateRenderer implements fyne.Widget: the entry's renderer with a layer on top that
// takes the mouse wheel (see scrollCatcher).
func (e *ShortcutEntry) CreateRenderer() fyne.WidgetRenderer {
	e.render = &passRenderer{WidgetRenderer: e.Entry.CreateRenderer()}
	e.render.catcher = newScrollCatcher(e.scrolled)
	return e.render
}

// scrolled routes a wheel event over the entry.
func (e *ShortcutEntry) scrolled(ev *fyne.ScrollEvent) {
	var inner fyne.Scrollable
	if e.render != nil {
		inner = e.render.innerScrollable()
	}
	switch {
	case e.MultiLine && inner != nil && scrollMoves(inner, ev):
	case e.scrollTo != nil:
		e.scrollTo.Scrolled(ev)
	case inner != nil && !e.MultiLine:
		inner.Scrolled(ev)
	}
}

// EscapeEntry is an Entry on which Escape runs OnEscape: in a dialog, Escape then closes
// the dialog also while its field has the focus (a focused field takes every key).
type EscapeEntry struct {
	widget.Entry
	OnEscape func()
}

// NewEscapeEntry makes a one-line EscapeEntry.
func NewEscapeEntry() *EscapeEntry {
	e := &EscapeEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey runs OnEscape for Escape and passes other keys on.
func (e *EscapeEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.OnEscape != nil {
		e.OnEscape()
		return
	}
	e.Entry.TypedKey(ev)
}
