package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// An Escaper runs a function on Escape while it has the keyboard focus: a focused widget
// takes every key, so the window's own Escape (closing a dialog or a window) never hears it.
type Escaper interface {
	SetOnEscape(func())
}

// SetOnEscape implements Escaper.
func (e *EscapeEntry) SetOnEscape(f func()) { e.OnEscape = f }

// NewEscapeMultiLineEntry makes a multi-line EscapeEntry.
func NewEscapeMultiLineEntry() *EscapeEntry {
	e := &EscapeEntry{}
	e.MultiLine = true
	e.ExtendBaseWidget(e)
	return e
}

// EscapeSlider is a Slider on which Escape runs OnEscape.
type EscapeSlider struct {
	widget.Slider
	OnEscape func()
}

// NewEscapeSlider makes a horizontal EscapeSlider from lo to hi, in steps of 1.
func NewEscapeSlider(lo, hi float64) *EscapeSlider {
	s := &EscapeSlider{}
	s.Min, s.Max, s.Value, s.Step, s.Orientation = lo, hi, lo, 1, widget.Horizontal
	s.ExtendBaseWidget(s)
	return s
}

// SetOnEscape implements Escaper.
func (s *EscapeSlider) SetOnEscape(f func()) { s.OnEscape = f }

// TypedKey runs OnEscape for Escape and passes other keys on.
func (s *EscapeSlider) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && s.OnEscape != nil {
		s.OnEscape()
		return
	}
	s.Slider.TypedKey(ev)
}

// EscapeCheck is a Check on which Escape runs OnEscape (a tapped check takes the focus).
type EscapeCheck struct {
	widget.Check
	OnEscape func()
}

// NewEscapeCheck makes an EscapeCheck labelled label.
func NewEscapeCheck(label string, changed func(bool)) *EscapeCheck {
	c := &EscapeCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// SetOnEscape implements Escaper.
func (c *EscapeCheck) SetOnEscape(f func()) { c.OnEscape = f }

// TypedKey runs OnEscape for Escape and passes other keys on.
func (c *EscapeCheck) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && c.OnEscape != nil {
		c.OnEscape()
		return
	}
	c.Check.TypedKey(ev)
}

// EscapeList is a List on which Escape runs OnEscape (a tapped row gives the list the focus).
type EscapeList struct {
	widget.List
	OnEscape func()
}

// NewEscapeList makes an EscapeList, as widget.NewList does a List.
func NewEscapeList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *EscapeList {
	l := &EscapeList{}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

// SetOnEscape implements Escaper.
func (l *EscapeList) SetOnEscape(f func()) { l.OnEscape = f }

// TypedKey runs OnEscape for Escape and passes other keys on.
func (l *EscapeList) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && l.OnEscape != nil {
		l.OnEscape()
		return
	}
	l.List.TypedKey(ev)
}

// OnEscapeIn makes Escape run f in every Escaper in the tree of o (containers, scrolls and
// what they hold).
func OnEscapeIn(o fyne.CanvasObject, f func()) {
	switch v := o.(type) {
	case Escaper:
		v.SetOnEscape(f)
	case *fyne.Container:
		for _, c := range v.Objects {
			OnEscapeIn(c, f)
		}
	case *container.Scroll:
		OnEscapeIn(v.Content, f)
	}
}
