package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// EscapeSelect is a Select on which Escape runs OnEscape (a focused select takes every key,
// so the dialog it sits in never heard Escape).
type EscapeSelect struct {
	widget.Select
	OnEscape func()
}

// NewEscapeSelect makes an EscapeSelect, as widget.NewSelect does a Select.
func NewEscapeSelect(options []string, changed func(string)) *EscapeSelect {
	s := &EscapeSelect{}
	s.Options, s.OnChanged, s.PlaceHolder = options, changed, "(Select one)"
	s.ExtendBaseWidget(s)
	return s
}

// SetOnEscape implements Escaper.
func (s *EscapeSelect) SetOnEscape(f func()) { s.OnEscape = f }

// TypedKey runs OnEscape for Escape and passes other keys on.
func (s *EscapeSelect) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && s.OnEscape != nil {
		s.OnEscape()
		return
	}
	s.Select.TypedKey(ev)
}

// NewEscapePasswordEntry makes a one-line EscapeEntry that hides what is typed, with a
// button that shows it, as widget.NewPasswordEntry does.
func NewEscapePasswordEntry() *EscapeEntry {
	e := &EscapeEntry{}
	e.Password, e.Wrapping = true, fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	var reveal *widget.Button
	reveal = widget.NewButtonWithIcon("", theme.VisibilityOffIcon(), func() {
		e.Password = !e.Password
		reveal.Icon = theme.VisibilityOffIcon()
		if !e.Password {
			reveal.Icon = theme.VisibilityIcon()
		}
		reveal.Refresh()
		e.Refresh()
	})
	reveal.Importance = widget.LowImportance
	e.ActionItem = reveal
	return e
}
