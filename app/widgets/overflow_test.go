package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
)

// Issue 28 item 6: the viewer's toolbar keeps one row: the actions that fit show in order,
// the others hide (the last object, the menu offering them all, always shows), and the
// row never asks for more width than that menu button.
func TestOverflowRow(t *testing.T) {
	var objs []fyne.CanvasObject
	for range 5 {
		r := canvas.NewRectangle(nil)
		r.SetMinSize(fyne.NewSize(40, 30))
		objs = append(objs, r)
	}
	c := container.New(OverflowRow{}, objs...)
	if m := c.MinSize(); m.Width != 40 || m.Height != 30 {
		t.Errorf("MinSize %v", m)
	}
	shown := func() (n int) {
		for _, o := range objs[:4] {
			if o.Visible() {
				n++
			}
		}
		return n
	}
	for w, want := range map[float32]int{1000: 4, 140: 2, 40: 0} {
		c.Resize(fyne.NewSize(w, 30))
		c.Refresh()
		OverflowRow{}.Layout(objs, fyne.NewSize(w, 30))
		if got := shown(); got != want || !objs[4].Visible() {
			t.Errorf("width %v: %d shown, want %d (menu shown %v)", w, got, want, objs[4].Visible())
		}
		if r := objs[4].Position().X + objs[4].Size().Width; r > w {
			t.Errorf("width %v: the menu button ends at %v", w, r)
		}
	}
}
