package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestEscapersTakeEscape: Escape on a focused Escape slider, check, list or entry runs its
// action, found through containers and scrolls; other keys keep their meaning.
func TestEscapersTakeEscape(t *testing.T) {
	test.NewTempApp(t)
	s := NewEscapeSlider(0, 10)
	c := NewEscapeCheck("on", nil)
	l := NewEscapeList(func() int { return 2 }, func() fyne.CanvasObject { return widget.NewLabel("") }, func(widget.ListItemID, fyne.CanvasObject) {})
	e := NewEscapeMultiLineEntry()
	test.NewTempWindow(t, container.NewVBox(s, c, container.NewVScroll(container.NewStack(l)), e))
	n := 0
	OnEscapeIn(container.NewVBox(s, c, container.NewVScroll(container.NewStack(l)), e), func() { n++ })
	for i, k := range []interface{ TypedKey(*fyne.KeyEvent) }{s, c, l, e} {
		k.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
		if n != i+1 {
			t.Fatalf("Escape on %T ran nothing", k)
		}
	}
	s.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	if s.Value != 1 || n != 4 {
		t.Errorf("→ on the slider: value %v, Escape action run %d times", s.Value, n)
	}
	if !e.MultiLine {
		t.Error("the multi-line entry is not multi-line")
	}
}
