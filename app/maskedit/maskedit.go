// Package maskedit is the mask painter of Inpaint mode: a widget that shows a picture with
// the mask to repaint over it, painted with a brush or rectangles, zoomed and panned, with
// undo; or, with outpainting padding, the extended canvas.
package maskedit

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/inpaint"
)

// Editor is the painting surface of Inpaint mode: the picture with its mask as a
// translucent red overlay, painted by dragging (or tapping) with a round brush of a size
// and hardness, or erased; strokes can be undone and redone, the mask cleared and
// inverted. Scrolling zooms about the pointer; in pan mode dragging moves the view. With outpainting padding set it shows the extended canvas instead (the new
// area as the mask), and painting is off.
type Editor struct {
	widget.BaseWidget

	src  image.Image
	w, h int
	// mask is the painted mask at the picture's size: 255 repaint, 0 keep.
	mask *image.Gray
	// Brush is the brush diameter in picture pixels; Hardness in 0..1 is the part of its
	// radius painted fully (the rest fades out); Erase paints 0.
	Brush    float64
	Hardness float64
	Erase    bool
	// Rect makes dragging add (or with Erase remove) the rectangle between the drag's
	// start and the pointer instead of brush strokes; rectFrom is that start and rectBase
	// the mask before the drag (picture pixels).
	Rect     bool
	rectFrom image.Point
	rectBase []uint8
	// pad is the outpainting padding (zero: inpainting).
	pad inpaint.Padding

	// zoom (1 = the whole picture, up to maxMaskZoom) and centre (picture pixels) select the
	// part shown; Pan makes dragging move the view instead of painting. Scrolling zooms
	// about the pointer.
	zoom   float64
	centre [2]float64
	Pan    bool

	undo, redo []*image.Gray
	stroking   bool
	last       image.Point // the previous dab of the stroke, in picture pixels
	view       *canvas.Image
	// Changed is called after every change of the mask or the padding (may be nil).
	Changed func()
}

// New is an editor of src with an empty mask, a 32-pixel brush of hardness 0.7, showing
// the whole picture.
func New(src image.Image) *Editor {
	b := src.Bounds()
	e := &Editor{src: src, w: b.Dx(), h: b.Dy(), mask: image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy())), Brush: 32, Hardness: 0.7, zoom: 1}
	e.centre = [2]float64{float64(e.w) / 2, float64(e.h) / 2}
	e.view = canvas.NewImageFromImage(nil)
	e.view.FillMode = canvas.ImageFillContain
	e.view.ScaleMode = canvas.ImageScalePixels
	e.ExtendBaseWidget(e)
	e.Render()
	return e
}

func (e *Editor) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(e.view) }

// MinSize keeps the surface usable in a small window.
func (e *Editor) MinSize() fyne.Size { return fyne.NewSize(200, 150) }

// maxMaskZoom is how far the editor zooms in.
const maxMaskZoom = 16

// visible is the part of the picture (or canvas) shown: the whole at zoom 1, else a
// window of 1/zoom of each side around centre, kept inside.
func (e *Editor) visible() image.Rectangle {
	w, h := e.w, e.h
	if !e.pad.IsZero() {
		w, h = e.pad.Size(e.w, e.h)
	}
	vw, vh := max(1, int(math.Round(float64(w)/e.zoom))), max(1, int(math.Round(float64(h)/e.zoom)))
	x0 := min(max(0, int(math.Round(e.centre[0]-float64(vw)/2))), w-vw)
	y0 := min(max(0, int(math.Round(e.centre[1]-float64(vh)/2))), h-vh)
	return image.Rect(x0, y0, x0+vw, y0+vh)
}

// toPictureF maps a position on the widget to picture coordinates (the visible part is
// fitted, centred, as ImageFillContain draws it).
func (e *Editor) toPictureF(p fyne.Position) (float64, float64) {
	s, v := e.Size(), e.visible()
	scale := math.Min(float64(s.Width)/float64(v.Dx()), float64(s.Height)/float64(v.Dy()))
	if scale <= 0 {
		return 0, 0
	}
	ox := (float64(s.Width) - float64(v.Dx())*scale) / 2
	oy := (float64(s.Height) - float64(v.Dy())*scale) / 2
	return float64(v.Min.X) + (float64(p.X)-ox)/scale, float64(v.Min.Y) + (float64(p.Y)-oy)/scale
}

// toPicture is toPictureF in whole pixels.
func (e *Editor) toPicture(p fyne.Position) image.Point {
	x, y := e.toPictureF(p)
	return image.Pt(int(math.Floor(x)), int(math.Floor(y)))
}

// Scrolled zooms in (scrolling up) or out about the pointer.
func (e *Editor) Scrolled(ev *fyne.ScrollEvent) {
	x, y := e.toPictureF(ev.Position)
	e.SetZoom(e.zoom*math.Pow(1.25, float64(ev.Scrolled.DY)/10), x, y)
}

// SetZoom sets the zoom (clamped to 1..maxMaskZoom), keeping the picture point (x, y)
// under the same place of the widget.
func (e *Editor) SetZoom(z, x, y float64) {
	z = min(max(z, 1), maxMaskZoom)
	old := e.zoom
	e.zoom = z
	// The point's offset from the centre shrinks by old/z.
	e.centre[0] = x - (x-e.centre[0])*old/z
	e.centre[1] = y - (y-e.centre[1])*old/z
	e.Render()
}

// Tapped paints one dab (nothing with the rectangle tool).
func (e *Editor) Tapped(ev *fyne.PointEvent) {
	if !e.pad.IsZero() || e.Pan || e.Rect {
		return
	}
	e.snapshot()
	e.dab(e.toPicture(ev.Position))
	e.Render()
}

// Dragged paints (or erases) along the drag, dabs spaced a quarter of the brush apart; with
// pan set it moves the view.
func (e *Editor) Dragged(ev *fyne.DragEvent) {
	if !e.pad.IsZero() && !e.Pan {
		return
	}
	if e.Pan { // move the view with the pointer
		v, s := e.visible(), e.Size()
		scale := math.Min(float64(s.Width)/float64(v.Dx()), float64(s.Height)/float64(v.Dy()))
		if scale > 0 {
			e.centre[0] -= float64(ev.Dragged.DX) / scale
			e.centre[1] -= float64(ev.Dragged.DY) / scale
			e.Render()
		}
		return
	}
	if e.Rect {
		e.dragRect(ev)
		return
	}
	p := e.toPicture(ev.Position)
	if !e.stroking {
		e.stroking = true
		e.snapshot()
		e.dab(p)
	} else {
		dx, dy := float64(p.X-e.last.X), float64(p.Y-e.last.Y)
		n := int(math.Ceil(math.Hypot(dx, dy) / math.Max(1, e.Brush/4)))
		from := e.last
		for i := 1; i <= n; i++ {
			e.dab(image.Pt(from.X+int(math.Round(dx*float64(i)/float64(n))), from.Y+int(math.Round(dy*float64(i)/float64(n)))))
		}
	}
	e.last = p
	e.Render()
}

// DragEnd ends the stroke (or the rectangle).
func (e *Editor) DragEnd() { e.stroking, e.rectBase = false, nil }

// dragRect shows the mask with the rectangle from the drag's start (where the pointer was
// before its first move) to the pointer filled, or cleared with the eraser; the whole drag
// is one step for Undo.
func (e *Editor) dragRect(ev *fyne.DragEvent) {
	if !e.stroking {
		e.stroking = true
		e.snapshot()
		e.rectBase = append([]uint8(nil), e.mask.Pix...)
		e.rectFrom = e.toPicture(ev.Position.Subtract(fyne.NewPos(ev.Dragged.DX, ev.Dragged.DY)))
	}
	copy(e.mask.Pix, e.rectBase)
	to := e.toPicture(ev.Position)
	r := image.Rectangle{Min: e.rectFrom, Max: to}.Canon()
	r.Max = r.Max.Add(image.Pt(1, 1)) // both corners are inside
	r = r.Intersect(image.Rect(0, 0, e.w, e.h))
	v := uint8(255)
	if e.Erase {
		v = 0
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := e.mask.Pix[y*e.mask.Stride+r.Min.X : y*e.mask.Stride+r.Max.X]
		for i := range row {
			row[i] = v
		}
	}
	e.Render()
}

// dab paints one round brush mark centred at c: full strength within hardness·radius,
// then a linear fade to the radius. Painting never lowers a value, erasing never raises one.
func (e *Editor) dab(c image.Point) {
	e.last = c
	r := math.Max(0.5, e.Brush/2)
	core := r * math.Max(0, math.Min(1, e.Hardness))
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
			if e.Erase {
				e.mask.Pix[i] = min(e.mask.Pix[i], 255-v)
			} else {
				e.mask.Pix[i] = max(e.mask.Pix[i], v)
			}
		}
	}
}

// snapshot records the mask for undo before a change, and drops the redo history.
func (e *Editor) snapshot() {
	c := *e.mask
	c.Pix = append([]uint8(nil), e.mask.Pix...)
	e.undo = append(e.undo, &c)
	e.redo = nil
}

// Undo and Redo step through the history of strokes, clears and inversions.
func (e *Editor) Undo() { e.step(&e.undo, &e.redo) }

// Redo redoes what Undo undid.
func (e *Editor) Redo() { e.step(&e.redo, &e.undo) }

func (e *Editor) step(from, to *[]*image.Gray) {
	if len(*from) == 0 {
		return
	}
	*to = append(*to, e.mask)
	e.mask = (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	e.Render()
}

// Clear empties the mask; Invert swaps what is repainted and what is kept.
func (e *Editor) Clear() {
	e.snapshot()
	clear(e.mask.Pix)
	e.Render()
}

// Invert swaps the repainted and the kept parts.
func (e *Editor) Invert() {
	e.snapshot()
	for i, v := range e.mask.Pix {
		e.mask.Pix[i] = 255 - v
	}
	e.Render()
}

// SetPadding sets the outpainting padding (zero returns to inpainting) and shows the new
// canvas.
func (e *Editor) SetPadding(p inpaint.Padding) {
	e.pad = p
	e.zoom = 1 // the whole canvas
	e.Render()
}

// Masked reports whether any pixel would be repainted (grey 128 or more, the pipeline's
// threshold).
func (e *Editor) Masked() bool {
	for _, v := range e.mask.Pix {
		if v >= 128 {
			return true
		}
	}
	return false
}

// Render draws the picture (or the outpainting canvas) with the mask as a translucent red
// overlay.
func (e *Editor) Render() {
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
	// Keep the centre where the view can be, then show the visible part.
	v := e.visible()
	e.centre = [2]float64{float64(v.Min.X) + float64(v.Dx())/2, float64(v.Min.Y) + float64(v.Dy())/2}
	e.view.Image = pic.SubImage(v)
	e.view.Refresh()
	if e.Changed != nil {
		e.Changed()
	}
}

// SetPicture replaces the picture with src (a result to refine further): the mask and its
// history are kept when the size is the same, else cleared; the padding returns to none.
func (e *Editor) SetPicture(src image.Image) {
	b := src.Bounds()
	e.src = src
	if b.Dx() != e.w || b.Dy() != e.h {
		e.w, e.h = b.Dx(), b.Dy()
		e.mask = image.NewGray(image.Rect(0, 0, e.w, e.h))
		e.undo, e.redo = nil, nil
		e.zoom, e.centre = 1, [2]float64{float64(e.w) / 2, float64(e.h) / 2}
	}
	e.pad = inpaint.Padding{}
	e.Render()
}

// Width is the picture's width in pixels (without the padding).
func (e *Editor) Width() int { return e.w }

// Height is the picture's height in pixels (without the padding).
func (e *Editor) Height() int { return e.h }

// Padding is the outpainting padding (zero: inpainting).
func (e *Editor) Padding() inpaint.Padding { return e.pad }

// Mask is the painted mask at the picture's size: 255 repaint, 0 keep. It is the editor's
// own: a caller that changes it calls Render.
func (e *Editor) Mask() *image.Gray { return e.mask }

// Preview is the part of the picture (or canvas) shown, with the mask over it.
func (e *Editor) Preview() image.Image { return e.view.Image }
