package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// OverflowRow lays out a toolbar in one row: its last object (a "more" button, whose menu
// offers every action) always shows, and the others show left to right while they fit
// before it; those that do not fit are hidden. Its minimum width is the last object's, so
// a narrow window gets a shorter toolbar rather than a wider window or a second row.
type OverflowRow struct{}

// Layout shows the objects that fit in size and hides the rest.
func (OverflowRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) == 0 {
		return
	}
	pad := theme.Padding()
	more := objs[len(objs)-1]
	moreW := more.MinSize().Width
	x := float32(0)
	for _, o := range objs[:len(objs)-1] {
		w := o.MinSize().Width
		if x+w+pad+moreW > size.Width {
			o.Hide()
			x = size.Width // the ones after it are hidden too: the order stays
			continue
		}
		o.Show()
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w + pad
	}
	more.Move(fyne.NewPos(min(x, max(size.Width-moreW, 0)), 0))
	more.Resize(fyne.NewSize(moreW, size.Height))
}

// MinSize is the last object's width and the tallest object's height.
func (OverflowRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s.Height = max(s.Height, o.MinSize().Height)
	}
	if len(objs) > 0 {
		s.Width = objs[len(objs)-1].MinSize().Width
	}
	return s
}
