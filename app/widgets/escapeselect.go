package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
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

// NewEscapePasswordEntry makes a one-line EscapeEntry that hides what is typed, with an
// eye that shows it when tapped, as widget.NewPasswordEntry does.
func NewEscapePasswordEntry() *EscapeEntry {
	e := &EscapeEntry{}
	e.Password, e.Wrapping = true, fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	r := &revealer{}
	r.SetResource(theme.VisibilityOffIcon())
	r.ExtendBaseWidget(r)
	r.onTap = func() {
		e.Password = !e.Password
		if e.Password {
			r.SetResource(theme.VisibilityOffIcon())
		} else {
			r.SetResource(theme.VisibilityIcon())
		}
		e.Refresh()
	}
	e.ActionItem = r
	return e
}

// revealer is the password entry's eye: an icon that toggles showing the text.
type revealer struct {
	widget.Icon
	onTap func()
}

// Tapped implements fyne.Tappable.
func (r *revealer) Tapped(*fyne.PointEvent) { r.onTap() }

// Cursor implements desktop.Cursorable.
func (r *revealer) Cursor() desktop.Cursor { return desktop.PointerCursor }
