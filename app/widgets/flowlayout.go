package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// RowsLayout places objects left to right, wrapping to a new row when one is full, like
// Fyne's row-wrap layout, but its minimum size is the narrowest width at which the objects
// fit in at most MaxRows rows (Fyne's asks for one object per row, which makes a row of
// buttons as tall as a column of them and the window needlessly tall).
type RowsLayout struct{ MaxRows int }

// wrapRows packs sizes greedily into rows no wider than width; it returns the number of
// rows and the height they take.
func wrapRows(sizes []fyne.Size, width, pad float32) (rows int, height float32) {
	x, rowH := float32(0), float32(0)
	for _, s := range sizes {
		if rows == 0 || (x > 0 && x+pad+s.Width > width) {
			if rows > 0 {
				height += rowH + pad
			}
			rows++
			x, rowH = 0, 0
		}
		if x > 0 {
			x += pad
		}
		x += s.Width
		rowH = max(rowH, s.Height)
	}
	return rows, height + rowH
}

func visibleSizes(objects []fyne.CanvasObject) []fyne.Size {
	var sizes []fyne.Size
	for _, o := range objects {
		if o.Visible() {
			sizes = append(sizes, o.MinSize())
		}
	}
	return sizes
}

// MinSize is the narrowest width (found by bisection) at which the visible objects fit in
// MaxRows rows, with their height there.
func (l RowsLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	sizes := visibleSizes(objects)
	if len(sizes) == 0 {
		return fyne.Size{}
	}
	pad := theme.Padding()
	lo, hi := float32(0), float32(0)
	for _, s := range sizes {
		lo = max(lo, s.Width)
		hi += s.Width + pad
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if rows, _ := wrapRows(sizes, mid, pad); rows <= max(1, l.MaxRows) {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, h := wrapRows(sizes, hi, pad)
	return fyne.NewSize(hi, h)
}

// Layout places the visible objects in rows at their minimum sizes, at most MaxRows rows:
// given less width than MinSize (a window held smaller than its content), the last row runs
// past the right edge, where it is clipped, rather than a further row being drawn over
// what lies below.
func (l RowsLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	x, y, rowH := float32(0), float32(0), float32(0)
	row := 0
	for _, o := range objects {
		if !o.Visible() {
			continue
		}
		s := o.MinSize()
		if x > 0 && x+pad+s.Width > size.Width && row < max(1, l.MaxRows)-1 {
			x, y, rowH = 0, y+rowH+pad, 0
			row++
		}
		if x > 0 {
			x += pad
		}
		o.Move(fyne.NewPos(x, y))
		o.Resize(s)
		x += s.Width
		rowH = max(rowH, s.Height)
	}
}

// HeightAt is the height the visible objects take when laid out in rows width wide.
func (l RowsLayout) HeightAt(objects []fyne.CanvasObject, width float32) float32 {
	_, h := wrapRows(visibleSizes(objects), width, theme.Padding())
	return h
}
