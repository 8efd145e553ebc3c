package compare

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"kleinbild/app/widgets"
)

// underPicture lays out the wipe's slider row, the A label, the slider and the B label,
// with the slider's track under the picture's width on screen, so that its thumb lies
// under the divider (issue 36 defect 16: the slider spanned the window, and its first and
// last quarters did nothing). Where the labels leave no room, the slider keeps to the row.
type underPicture struct{ wipe *widgets.Wipe }

// MinSize is the labels' and the slider's least widths side by side.
func (underPicture) MinSize(objs []fyne.CanvasObject) fyne.Size {
	a, s, b := objs[0].MinSize(), objs[1].MinSize(), objs[2].MinSize()
	return fyne.NewSize(a.Width+s.Width+b.Width+2*theme.Padding(), max(a.Height, s.Height, b.Height))
}

// Layout puts the slider under the picture and a label on each side of it.
func (l underPicture) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	a, s, b := objs[0], objs[1], objs[2]
	pad := theme.Padding()
	aw, bw := a.MinSize().Width, b.MinSize().Width
	from, to := l.wipe.PictureSpan()
	if to <= from {
		from, to = 0, size.Width
	}
	end := sliderTrackInset()
	left, right := max(aw+pad, from-end), min(size.Width-bw-pad, to+end)
	if right-left < s.MinSize().Width {
		left, right = aw+pad, size.Width-bw-pad
	}
	s.Move(fyne.NewPos(left, 0))
	s.Resize(fyne.NewSize(right-left, size.Height))
	a.Move(fyne.NewPos(left-pad-aw, 0))
	a.Resize(fyne.NewSize(aw, size.Height))
	b.Move(fyne.NewPos(right+pad, 0))
	b.Resize(fyne.NewSize(bw, size.Height))
}

// sliderTrackInset is how far in from a slider's ends its track begins and ends, where
// its thumb's centre lies at the least and the greatest value (Fyne 2.7's
// Slider.endOffset: half the thumb, which is 4 less than an inline icon, and the inner
// padding, less 1.5).
func sliderTrackInset() float32 {
	return (theme.Size(theme.SizeNameInlineIcon)-4)/2 + theme.InnerPadding() - 1.5
}
