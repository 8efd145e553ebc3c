package widgets

import (
	"image"
	"image/draw"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// ZoomImage shows an image fitted to its area, or zoomed and panned: the mouse wheel
// zooms around the pointer, dragging pans, a double click switches between fitted and
// actual size. Only the visible part of the image is drawn, so deep zooms stay cheap,
// and the widget clips what it draws (it is Scrollable).
type ZoomImage struct {
	widget.BaseWidget

	// Image is the image shown, nil for none; change it with SetImage.
	Image image.Image
	// OnChanged, when set, is called after the zoom or the pan changed, also when a fitted
	// image's scale changed with the widget's size.
	OnChanged func()

	sub     image.Image // Image, in a form draw.Draw copies from quickly
	view    zoomView
	area    fyne.Size // the size view was computed for
	pointer fyne.Position
	hover   bool
	raster  *canvas.Image
	crop    image.Rectangle   // the part of sub in raster
	telling bool              // OnChanged is running
	owner   fyne.CanvasObject // the widget that embeds this one (Wipe), nil for none
}

func NewZoomImage() *ZoomImage {
	z := &ZoomImage{view: zoomView{fit: true}}
	z.raster = &canvas.Image{FillMode: canvas.ImageFillStretch, ScaleMode: canvas.ImageScaleSmooth}
	z.raster.Hide()
	z.ExtendBaseWidget(z)
	return z
}

// subImager is an image that can hand out a part of itself without copying.
type subImager interface {
	image.Image
	SubImage(r image.Rectangle) image.Image
}

// asSubImager is img itself when it can hand out parts, else a copy of it that can.
func asSubImager(img image.Image) subImager {
	if s, ok := img.(subImager); ok {
		return s
	}
	rgba := image.NewNRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// SetImage shows img (nil for none). An image of another resolution replacing a zoomed
// one (a thumbnail's full image, a preview's result) keeps the same part on screen.
func (z *ZoomImage) SetImage(img image.Image) {
	old := z.imgSize()
	z.Image = img
	z.sub = nil
	z.crop = image.Rectangle{}
	if img != nil {
		z.sub = asSubImager(img)
		z.view = rescaleView(z.view, old, z.imgSize())
		if old == (image.Point{}) {
			z.view.fit = true
		}
	}
	z.update()
}

// imgSize is the shown image's size in pixels, zero for none.
func (z *ZoomImage) imgSize() image.Point {
	if z.Image == nil {
		return image.Point{}
	}
	return z.Image.Bounds().Size()
}

// actualScale is the scale at which one image pixel is one screen pixel.
func (z *ZoomImage) actualScale() float32 {
	var o fyne.CanvasObject = z
	if z.owner != nil {
		o = z.owner // the one on the canvas
	}
	if c := fyne.CurrentApp().Driver().CanvasForObject(o); c != nil && c.Scale() > 0 {
		return 1 / c.Scale()
	}
	return 1
}

// Offset is where the image's top-left corner sits in the view (zero or negative).
func (z *ZoomImage) Offset() fyne.Position { return z.view.off }

// Shown is the raster drawn now: the visible part of the image at screen resolution.
func (z *ZoomImage) Shown() image.Image { return z.raster.Image }

// View is the zoom: the scale (view units per image pixel), where the image's top-left
// corner lies, and whether the image is fitted (the view then follows the widget's size).
func (z *ZoomImage) View() (scale float32, off fyne.Position, fit bool) {
	z.layoutView(z.Size())
	return z.view.scale, z.view.off, z.view.fit
}

// SetView sets the zoom View reported (another view's, to show the same part of an image
// of the same size), clamped to this widget's area.
func (z *ZoomImage) SetView(scale float32, off fyne.Position, fit bool) {
	if fit || scale <= 0 || isBad(scale) {
		z.view = zoomView{fit: true}
	} else {
		z.view = zoomView{scale: scale, off: clampOffset(off, z.imgSize(), scale, z.Size())}
	}
	z.area = z.Size()
	z.update()
}

// Fitted reports whether the whole image is fitted to the area.
func (z *ZoomImage) Fitted() bool { return z.view.fit }

// Percent is the zoom in percent of the actual size (0 with no image).
func (z *ZoomImage) Percent() int {
	z.layoutView(z.Size())
	if z.Image == nil || z.view.scale <= 0 {
		return 0
	}
	return int(z.view.scale/z.actualScale()*100 + 0.5)
}

// Fit shows the whole image.
func (z *ZoomImage) Fit() {
	z.view = zoomView{fit: true}
	z.update()
}

// Actual shows the image at one image pixel per screen pixel, around the pointer or the
// centre.
func (z *ZoomImage) Actual() { z.zoomTo(z.actualScale(), z.Pivot()) }

// ZoomIn magnifies to the next zoom level (zoomLevel) around the pointer or the centre.
func (z *ZoomImage) ZoomIn() { z.zoomLevel(true) }

// ZoomOut shrinks to the previous zoom level around the pointer or the centre.
func (z *ZoomImage) ZoomOut() { z.zoomLevel(false) }

func (z *ZoomImage) zoomLevel(up bool) {
	z.layoutView(z.Size())
	if a := z.actualScale(); a > 0 && z.view.scale > 0 {
		z.zoomTo(a*zoomLevel(z.view.scale/a, up), z.Pivot())
	}
}

// ToggleActual switches between the fitted view and actual size around at.
func (z *ZoomImage) ToggleActual(at fyne.Position) {
	if z.view.fit {
		z.zoomTo(z.actualScale(), at)
		return
	}
	z.Fit()
}

// pivot is the point zoom keys and buttons zoom around: the pointer when over the
// image, else the centre.
func (z *ZoomImage) Pivot() fyne.Position {
	if z.hover {
		return z.pointer
	}
	s := z.Size()
	return fyne.NewPos(s.Width/2, s.Height/2)
}

func (z *ZoomImage) zoomBy(factor float32, at fyne.Position) {
	z.layoutView(z.Size())
	z.zoomTo(z.view.scale*factor, at)
}

func (z *ZoomImage) zoomTo(scale float32, at fyne.Position) {
	if z.Image == nil {
		return
	}
	size := z.Size()
	z.layoutView(size)
	z.view = zoomTo(z.view, scale, at, z.imgSize(), size, z.actualScale())
	z.update()
}

// layoutView fits or clamps the view to an area of size.
func (z *ZoomImage) layoutView(size fyne.Size) {
	img := z.imgSize()
	switch {
	case z.view.fit:
		z.view = fittedView(img, size)
	case size != z.area:
		z.view.off = clampOffset(z.view.off, img, z.view.scale, size)
	}
	z.area = size
}

// update redraws after a change of image or view and tells OnChanged.
func (z *ZoomImage) update() {
	z.Refresh()
	z.changed()
}

// changed tells OnChanged, unless it is running already (it may lay the widget out).
func (z *ZoomImage) changed() {
	if z.OnChanged == nil || z.telling {
		return
	}
	z.telling = true
	defer func() { z.telling = false }()
	z.OnChanged()
}

// Scrolled zooms around the pointer (vertical scrolling) or pans (horizontal).
func (z *ZoomImage) Scrolled(ev *fyne.ScrollEvent) {
	if z.Image == nil {
		return
	}
	if ev.Scrolled.DY != 0 {
		z.zoomBy(wheelFactor(ev.Scrolled.DY), ev.Position)
		return
	}
	if ev.Scrolled.DX != 0 {
		z.pan(fyne.NewDelta(ev.Scrolled.DX, 0))
	}
}

// Dragged pans the image.
func (z *ZoomImage) Dragged(ev *fyne.DragEvent) { z.pan(ev.Dragged) }

// DragEnd ends a pan.
func (z *ZoomImage) DragEnd() {}

func (z *ZoomImage) pan(d fyne.Delta) {
	if z.Image == nil {
		return
	}
	z.layoutView(z.Size())
	v := panBy(z.view, d, z.imgSize(), z.Size())
	if v != z.view {
		z.view = v
		z.update()
	}
}

// DoubleTapped switches between fitted and actual size around the pointer.
func (z *ZoomImage) DoubleTapped(ev *fyne.PointEvent) { z.ToggleActual(ev.Position) }

// MouseIn notes the pointer, the zoom keys' pivot.
func (z *ZoomImage) MouseIn(ev *desktop.MouseEvent) { z.hover, z.pointer = true, ev.Position }

// MouseMoved notes the pointer.
func (z *ZoomImage) MouseMoved(ev *desktop.MouseEvent) { z.hover, z.pointer = true, ev.Position }

// MouseOut forgets the pointer.
func (z *ZoomImage) MouseOut() { z.hover = false }

// MinSize is small: the image shrinks with the window.
func (z *ZoomImage) MinSize() fyne.Size { return fyne.NewSquareSize(96) }

// CreateRenderer implements fyne.Widget.
func (z *ZoomImage) CreateRenderer() fyne.WidgetRenderer { return &zoomRenderer{z: z} }

type zoomRenderer struct{ z *ZoomImage }

func (r *zoomRenderer) Layout(size fyne.Size) {
	z := r.z
	scale := z.view.scale
	z.layoutView(size)
	if z.view.fit && z.view.scale != scale {
		// A fitted image's scale follows the size: the zoom level shown changes.
		defer z.changed()
	}
	src, pos, sz, ok := visibleCrop(z.view, z.imgSize(), size)
	if z.sub == nil || !ok {
		z.raster.Hide()
		return
	}
	z.raster.Move(pos)
	z.raster.Resize(sz)
	mode := canvas.ImageScaleSmooth
	if z.view.scale >= 2*z.actualScale() {
		mode = canvas.ImageScalePixels // crisp pixels when magnified
	}
	origin := z.sub.Bounds().Min
	if src != z.crop || z.raster.Image == nil || mode != z.raster.ScaleMode {
		z.crop = src
		z.raster.ScaleMode = mode
		z.raster.Image = packedCopy(z.sub, src.Add(origin))
		z.raster.Refresh()
	}
	z.raster.Show()
}

// packedCopy copies the part r of img into a new RGBA image whose rows are packed
// (stride 4×width) and whose bounds start at (0,0). Fyne's GL driver uploads an
// *image.RGBA's Pix as if it were packed and converts other images from (0,0), so a
// SubImage handed to it directly is drawn sheared or shifted (visible with
// ImageScalePixels, which skips the driver's own rescaling copy).
func packedCopy(img image.Image, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Rect, img, r.Min, draw.Src)
	return out
}

func (r *zoomRenderer) MinSize() fyne.Size { return r.z.MinSize() }

func (r *zoomRenderer) Refresh() {
	r.Layout(r.z.Size())
	canvas.Refresh(r.z.raster)
}

func (r *zoomRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.z.raster} }

func (r *zoomRenderer) Destroy() {}
