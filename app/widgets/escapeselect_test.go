package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Escape on a focused EscapeSelect or password EscapeEntry runs OnEscape (a dialog closes);
// the password entry's eye shows and hides the text.
func TestEscapeSelectAndPassword(t *testing.T) {
	test.NewTempApp(t)
	s := NewEscapeSelect([]string{"a", "b"}, nil)
	e := NewEscapePasswordEntry()
	n := 0
	for _, x := range []Escaper{s, e} {
		x.SetOnEscape(func() { n++ })
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if n != 2 {
		t.Errorf("Escape ran OnEscape %d times of 2", n)
	}
	eye := e.ActionItem.(fyne.Tappable)
	eye.Tapped(&fyne.PointEvent{})
	if e.Password {
		t.Error("the eye did not show the text")
	}
	eye.Tapped(&fyne.PointEvent{})
	if !e.Password {
		t.Error("the eye did not hide the text again")
	}
}
