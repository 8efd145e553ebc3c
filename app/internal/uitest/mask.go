package uitest

import (
	"image"
	"image/color"

	"kleinbild/app/maskedit"
)

// PaintAt paints a square of the brush's size centred at p (picture pixels) into e's mask,
// as a stroke there does.
func PaintAt(e *maskedit.Editor, p image.Point) {
	r := int(e.Brush) / 2
	m := e.Mask()
	for y := p.Y - r; y <= p.Y+r; y++ {
		for x := p.X - r; x <= p.X+r; x++ {
			m.SetGray(x, y, color.Gray{Y: 255})
		}
	}
	e.Render()
}
