package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// The rows layout asks for the narrowest width that holds its objects in MaxRows rows, and
// at that width (and wider) places every object inside its bounds without overlap.
func TestRowsLayout(t *testing.T) {
	var objs []fyne.CanvasObject
	for _, w := range []float32{120, 80, 150, 60, 100, 90, 130} {
		r := canvas.NewRectangle(nil)
		r.SetMinSize(fyne.NewSize(w, 30))
		objs = append(objs, r)
	}
	pad := theme.Padding()
	for _, rows := range []int{1, 2, 3, 7} {
		l := RowsLayout{MaxRows: rows}
		m := l.MinSize(objs)
		if n, _ := wrapRows(visibleSizes(objs), m.Width, pad); n > rows {
			t.Errorf("MaxRows %d: min width %v needs %d rows", rows, m.Width, n)
		}
		if n, _ := wrapRows(visibleSizes(objs), m.Width-2, pad); n <= rows && rows < len(objs) {
			t.Errorf("MaxRows %d: min width %v is not the narrowest (%v also fits)", rows, m.Width, m.Width-2)
		}
		if want := float32(rows)*30 + float32(rows-1)*pad; m.Height > want+0.5 {
			t.Errorf("MaxRows %d: min height %v, want at most %v", rows, m.Height, want)
		}
		for _, w := range []float32{m.Width, m.Width + 37, 2000} {
			l.Layout(objs, fyne.NewSize(w, m.Height))
			for i, o := range objs {
				p, s := o.Position(), o.Size()
				if p.X < 0 || p.X+s.Width > w+0.5 || p.Y+s.Height > l.MinSize(objs).Height+float32(len(objs))*40 {
					t.Errorf("width %v: object %d at %v size %v outside", w, i, p, s)
				}
				for j := range i {
					q, r := objs[j].Position(), objs[j].Size()
					if p.X < q.X+r.Width && q.X < p.X+s.Width && p.Y < q.Y+r.Height && q.Y < p.Y+s.Height {
						t.Errorf("width %v: objects %d and %d overlap", w, j, i)
					}
				}
			}
		}
	}
	// Narrower than its minimum (a window the screen holds smaller), it keeps to MaxRows
	// rows, so it never draws below its minimum height over what follows it.
	for _, rows := range []int{1, 2, 3} {
		l := RowsLayout{MaxRows: rows}
		m := l.MinSize(objs)
		l.Layout(objs, fyne.NewSize(m.Width/2, m.Height))
		for i, o := range objs {
			if bottom := o.Position().Y + o.Size().Height; bottom > m.Height+0.5 {
				t.Errorf("MaxRows %d at half its width: object %d reaches %v, below the minimum height %v", rows, i, bottom, m.Height)
			}
		}
	}
	if m := (RowsLayout{MaxRows: 2}).MinSize(nil); m != (fyne.Size{}) {
		t.Errorf("empty: %v", m)
	}
}
