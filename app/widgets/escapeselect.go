package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
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
// eye that shows it when tapped, as widget.NewPasswordEntry does (whose eye Fyne keeps to
// its own Entry).
func NewEscapePasswordEntry() *EscapeEntry {
	e := &EscapeEntry{}
	e.Password, e.Wrapping = true, fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	r := &revealer{entry: e, icon: canvas.NewImageFromResource(theme.VisibilityOffIcon())}
	r.ExtendBaseWidget(r)
	e.ActionItem = r
	return e
}

// revealer is the password entry's eye, drawn and sized as Fyne's own: tapped, it shows or
// hides the text.
type revealer struct {
	widget.BaseWidget
	entry *EscapeEntry
	icon  *canvas.Image
}

// Tapped implements fyne.Tappable.
func (r *revealer) Tapped(*fyne.PointEvent) {
	if r.entry.Disabled() {
		return
	}
	r.entry.Password = !r.entry.Password
	r.entry.Refresh()
	r.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (r *revealer) CreateRenderer() fyne.WidgetRenderer { return &revealerRenderer{r} }

type revealerRenderer struct{ r *revealer }

func (rr *revealerRenderer) Layout(size fyne.Size) {
	side := theme.Size(theme.SizeNameInlineIcon)
	rr.r.icon.Resize(fyne.NewSquareSize(side))
	rr.r.icon.Move(fyne.NewPos((size.Width-side)/2, (size.Height-side)/2))
}

func (rr *revealerRenderer) MinSize() fyne.Size {
	return fyne.NewSquareSize(theme.Size(theme.SizeNameInlineIcon) + 2*theme.Size(theme.SizeNameInnerPadding))
}

func (rr *revealerRenderer) Refresh() {
	res := theme.VisibilityOffIcon()
	if !rr.r.entry.Password {
		res = theme.VisibilityIcon()
	}
	if rr.r.entry.Disabled() {
		res = theme.NewDisabledResource(res)
	}
	rr.r.icon.Resource = res
	rr.r.icon.Refresh()
}

func (rr *revealerRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{rr.r.icon} }
func (rr *revealerRenderer) Destroy()                     {}
