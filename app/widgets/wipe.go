package widgets

import (
	"image"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// Wipe shows two images over each other with one zoom and pan, as a ZoomImage does for
// one: the first image (Image) left of a divider, the second right of it. The second is
// stretched to the first's size, so that the same pixel of both lies at the same place.
type Wipe struct {
	ZoomImage

	// Split is where the divider lies, as a fraction of the picture's width on screen (of
	// the widget's without a picture); change it with SetSplit.
	Split float32

	other   image.Image // the second image, nil for none
	subB    image.Image // other, in a form draw.Draw copies from quickly
	rasterB *canvas.Image
	back    *canvas.Rectangle // behind rasterB, so that the first image never shows through
	line    *canvas.Rectangle // the divider
	cropB   image.Rectangle   // the part of subB in rasterB
	fromB   float32           // where rasterB begins, in widget units (the width when hidden)
	span    [2]float32        // the picture's left and right edge on screen (splitX's range)

	// OnSpanChanged, when set, is called when the picture's edges on screen moved (see
	// PictureSpan): a slider under the picture follows them.
	OnSpanChanged func()
}

// NewWipe makes a Wipe with no images and the divider in the middle.
func NewWipe() *Wipe {
	w := &Wipe{Split: 0.5}
	w.view = zoomView{fit: true}
	w.raster = &canvas.Image{FillMode: canvas.ImageFillStretch, ScaleMode: canvas.ImageScaleSmooth}
	w.raster.Hide()
	w.rasterB = &canvas.Image{FillMode: canvas.ImageFillStretch, ScaleMode: canvas.ImageScaleSmooth}
	w.rasterB.Hide()
	w.back = canvas.NewRectangle(theme.Color(theme.ColorNameBackground))
	w.back.Hide()
	w.line = canvas.NewRectangle(theme.Color(theme.ColorNameForeground))
	w.owner = w
	w.ExtendBaseWidget(w)
	return w
}

// SetImages shows a left of the divider and b right of it (nil for none), keeping the view.
func (w *Wipe) SetImages(a, b image.Image) {
	w.other, w.subB, w.cropB = b, nil, image.Rectangle{}
	if b != nil {
		w.subB = asSubImager(b)
	}
	w.SetImage(a)
}

// Other is the second image, shown right of the divider.
func (w *Wipe) Other() image.Image { return w.other }

// SetSplit moves the divider to the fraction f of the picture's width (clamped to 0..1).
func (w *Wipe) SetSplit(f float32) {
	if isBad(f) {
		return
	}
	w.Split = min(1, max(0, f))
	w.Refresh()
}

// OtherFrom is where the second image begins on screen, in widget units: the divider,
// snapped to the first image's pixel there; the width when none of it shows.
func (w *Wipe) OtherFrom() float32 { return w.fromB }

// PictureSpan is where the picture begins and ends across the widget on screen, in
// widget units: the range the divider moves over (the whole width without a picture).
func (w *Wipe) PictureSpan() (from, to float32) { return w.span[0], w.span[1] }

// ShownOther is the raster of the second image drawn now (nil when none of it shows).
func (w *Wipe) ShownOther() image.Image {
	if !w.rasterB.Visible() {
		return nil
	}
	return w.rasterB.Image
}

// CreateRenderer implements fyne.Widget.
func (w *Wipe) CreateRenderer() fyne.WidgetRenderer {
	return &wipeRenderer{w: w, zr: zoomRenderer{z: &w.ZoomImage}}
}

type wipeRenderer struct {
	w  *Wipe
	zr zoomRenderer
}

func (r *wipeRenderer) Layout(size fyne.Size) {
	r.zr.Layout(size)
	w := r.w
	src, pos, sz, ok := visibleCrop(w.view, w.imgSize(), size)
	x := w.layoutSpan(size, pos, sz, ok)
	w.line.Resize(fyne.NewSize(2, size.Height))
	w.line.Move(fyne.NewPos(x-1, 0))
	w.fromB = size.Width
	if !ok || w.subB == nil {
		w.rasterB.Hide()
		w.back.Hide()
		return
	}
	// The first pixel column of the first image at the divider, and the same part of the
	// second image (stretched to the first's size).
	cx := src.Min.X + int(math.Floor(float64((x-pos.X)/w.view.scale)))
	cx = min(max(cx, src.Min.X), src.Max.X)
	if cx >= src.Max.X {
		w.rasterB.Hide()
		w.back.Hide()
		return
	}
	a, b := w.imgSize(), w.subB.Bounds().Size()
	rb := image.Rect(cx*b.X/a.X, src.Min.Y*b.Y/a.Y, ceilDiv(src.Max.X*b.X, a.X), ceilDiv(src.Max.Y*b.Y, a.Y))
	if rb.Empty() {
		w.rasterB.Hide()
		w.back.Hide()
		return
	}
	from := pos.X + float32(cx-src.Min.X)*w.view.scale
	w.fromB = from
	w.line.Move(fyne.NewPos(from-1, 0))
	if rb != w.cropB || w.rasterB.Image == nil || w.rasterB.ScaleMode != w.raster.ScaleMode {
		w.cropB = rb
		w.rasterB.ScaleMode = w.raster.ScaleMode
		w.rasterB.Image = packedCopy(w.subB, rb.Add(w.subB.Bounds().Min))
		w.rasterB.Refresh()
	}
	for _, o := range []fyne.CanvasObject{w.back, w.rasterB} {
		o.Move(fyne.NewPos(from, pos.Y))
		o.Resize(fyne.NewSize(pos.X+sz.Width-from, sz.Height))
		o.Show()
	}
}

// layoutSpan notes the picture's edges on screen (pos, sz; ok false when none: the
// widget's, size), telling OnSpanChanged when they moved, and returns where the divider
// lies: the fraction Split across them. So the whole slider moves the divider over the
// picture (issue 36 defect 16: across the widget, its first and last quarters did
// nothing to a fitted picture).
func (w *Wipe) layoutSpan(size fyne.Size, pos fyne.Position, sz fyne.Size, ok bool) float32 {
	span := [2]float32{0, size.Width}
	if ok {
		span = [2]float32{max(0, pos.X), min(size.Width, pos.X+sz.Width)}
	}
	if span != w.span {
		w.span = span
		if w.OnSpanChanged != nil {
			w.OnSpanChanged()
		}
	}
	return span[0] + w.Split*(span[1]-span[0])
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

func (r *wipeRenderer) MinSize() fyne.Size { return r.w.MinSize() }

func (r *wipeRenderer) Refresh() {
	r.Layout(r.w.Size())
	for _, o := range r.Objects() {
		canvas.Refresh(o)
	}
}

func (r *wipeRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.w.raster, r.w.back, r.w.rasterB, r.w.line}
}

func (r *wipeRenderer) Destroy() {}
