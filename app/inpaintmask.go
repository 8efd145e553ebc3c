package app

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/inpaint"
)

// maskEditor is the painting surface of Inpaint mode: the picture with its mask as a
// translucent red overlay, painted by dragging (or tapping) with a round brush of a size
// and hardness, or erased; strokes can be undone and redone, the mask cleared and
// inverted. With outpainting padding set it shows the extended canvas instead (the new
// area as the mask), and painting is off.
type maskEditor struct {
	widget.BaseWidget

	src  image.Image
	w, h int
	// mask is the painted mask at the picture's size: 255 repaint, 0 keep.
	mask *image.Gray
	// brush is the brush diameter in picture pixels; hardness in 0..1 is the part of its
	// radius painted fully (the rest fades out); erase paints 0.
	brush    float64
	hardness float64
	erase    bool
	// pad is the outpainting padding (zero: inpainting).
	pad inpaint.Padding

	undo, redo []*image.Gray
	stroking   bool
	last       image.Point // the previous dab of the stroke, in picture pixels
	view       *canvas.Image
	// changed is called after every change of the mask or the padding (may be nil).
	changed func()
}

func newMaskEditor(src image.Image) *maskEditor {
	b := src.Bounds()
	e := &maskEditor{src: src, w: b.Dx(), h: b.Dy(), mask: image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy())), brush: 32, hardness: 0.7}
	e.view = canvas.NewImageFromImage(nil)
	e.view.FillMode = canvas.ImageFillContain
	e.view.ScaleMode = canvas.ImageScalePixels
	e.ExtendBaseWidget(e)
	e.render()
	return e
}

func (e *maskEditor) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(e.view) }

// MinSize keeps the surface usable in a small window.
func (e *maskEditor) MinSize() fyne.Size { return fyne.NewSize(200, 150) }

// toPicture maps a position on the widget to picture pixels (the picture is fitted,
// centred, as ImageFillContain draws it).
func (e *maskEditor) toPicture(p fyne.Position) image.Point {
	s := e.Size()
	scale := math.Min(float64(s.Width)/float64(e.w), float64(s.Height)/float64(e.h))
	if scale <= 0 {
		return image.Point{}
	}
	ox := (float64(s.Width) - float64(e.w)*scale) / 2
	oy := (float64(s.Height) - float64(e.h)*scale) / 2
	return image.Pt(int(math.Floor((float64(p.X)-ox)/scale)), int(math.Floor((float64(p.Y)-oy)/scale)))
}

// Tapped paints one dab.
func (e *maskEditor) Tapped(ev *fyne.PointEvent) {
	if !e.pad.IsZero() {
		return
	}
	e.snapshot()
	e.dab(e.toPicture(ev.Position))
	e.render()
}

// Dragged paints (or erases) along the drag, dabs spaced a quarter of the brush apart.
func (e *maskEditor) Dragged(ev *fyne.DragEvent) {
	if !e.pad.IsZero() {
		return
	}
	p := e.toPicture(ev.Position)
	if !e.stroking {
		e.stroking = true
		e.snapshot()
		e.dab(p)
	} else {
		dx, dy := float64(p.X-e.last.X), float64(p.Y-e.last.Y)
		n := int(math.Ceil(math.Hypot(dx, dy) / math.Max(1, e.brush/4)))
		from := e.last
		for i := 1; i <= n; i++ {
			e.dab(image.Pt(from.X+int(math.Round(dx*float64(i)/float64(n))), from.Y+int(math.Round(dy*float64(i)/float64(n)))))
		}
	}
	e.last = p
	e.render()
}

// DragEnd ends the stroke.
func (e *maskEditor) DragEnd() { e.stroking = false }

// dab paints one round brush mark centred at c: full strength within hardness·radius,
// then a linear fade to the radius. Painting never lowers a value, erasing never raises one.
func (e *maskEditor) dab(c image.Point) {
	e.last = c
	r := math.Max(0.5, e.brush/2)
	core := r * math.Max(0, math.Min(1, e.hardness))
	ri := int(math.Ceil(r))
	for y := c.Y - ri; y <= c.Y+ri; y++ {
		for x := c.X - ri; x <= c.X+ri; x++ {
			if x < 0 || y < 0 || x >= e.w || y >= e.h {
				continue
			}
			d := math.Hypot(float64(x-c.X), float64(y-c.Y))
			if d > r {
				continue
			}
			a := 1.0
			if d > core {
				a = (r - d) / (r - core)
			}
			i := y*e.mask.Stride + x
			v := uint8(math.Round(255 * a))
			if e.erase {
				e.mask.Pix[i] = min(e.mask.Pix[i], 255-v)
			} else {
				e.mask.Pix[i] = max(e.mask.Pix[i], v)
			}
		}
	}
}

// snapshot records the mask for undo before a change, and drops the redo history.
func (e *maskEditor) snapshot() {
	c := *e.mask
	c.Pix = append([]uint8(nil), e.mask.Pix...)
	e.undo = append(e.undo, &c)
	e.redo = nil
}

// Undo and Redo step through the history of strokes, clears and inversions.
func (e *maskEditor) Undo() { e.step(&e.undo, &e.redo) }

// Redo redoes what Undo undid.
func (e *maskEditor) Redo() { e.step(&e.redo, &e.undo) }

func (e *maskEditor) step(from, to *[]*image.Gray) {
	if len(*from) == 0 {
		return
	}
	*to = append(*to, e.mask)
	e.mask = (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	e.render()
}

// Clear empties the mask; Invert swaps what is repainted and what is kept.
func (e *maskEditor) Clear() {
	e.snapshot()
	clear(e.mask.Pix)
	e.render()
}

// Invert swaps the repainted and the kept parts.
func (e *maskEditor) Invert() {
	e.snapshot()
	for i, v := range e.mask.Pix {
		e.mask.Pix[i] = 255 - v
	}
	e.render()
}

// SetPadding sets the outpainting padding (zero returns to inpainting) and shows the new
// canvas.
func (e *maskEditor) SetPadding(p inpaint.Padding) {
	e.pad = p
	e.render()
}

// Masked reports whether any pixel would be repainted (grey 128 or more, the pipeline's
// threshold).
func (e *maskEditor) Masked() bool {
	for _, v := range e.mask.Pix {
		if v >= 128 {
			return true
		}
	}
	return false
}

// render draws the picture (or the outpainting canvas) with the mask as a translucent red
// overlay.
func (e *maskEditor) render() {
	var pic *image.NRGBA
	var mask []uint8
	if e.pad.IsZero() {
		pic = image.NewNRGBA(image.Rect(0, 0, e.w, e.h))
		b := e.src.Bounds()
		for y := 0; y < e.h; y++ {
			for x := 0; x < e.w; x++ {
				pic.Set(x, y, e.src.At(b.Min.X+x, b.Min.Y+y))
			}
		}
		mask = e.mask.Pix
	} else if canvas, m, err := inpaint.Outpaint(e.src, e.pad); err == nil {
		pic, mask = canvas.NRGBA(), m
	} else {
		return // SetPadding's callers check the padding first
	}
	for i, v := range mask {
		if v == 0 {
			continue
		}
		a := uint32(v) * 140 / 255 // at most about 55 % red over the picture
		px := pic.Pix[i*4 : i*4+4]
		px[0] = uint8((uint32(px[0])*(255-a) + 255*a) / 255)
		px[1] = uint8(uint32(px[1]) * (255 - a) / 255)
		px[2] = uint8(uint32(px[2]) * (255 - a) / 255)
		px[3] = 255
	}
	e.view.Image = pic
	e.view.Refresh()
	if e.changed != nil {
		e.changed()
	}
}
