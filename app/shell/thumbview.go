package shell

import (
	"image"

	"kleinbild/app/gallery"
	"kleinbild/app/thumbcache"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ThumbImage shows a thumbnail on a rounded placeholder; it remembers which key it shows so
// late results for a recycled cell are ignored.
type ThumbImage struct {
	widget.BaseWidget
	size   fyne.Size
	bg     *canvas.Rectangle
	Img    *canvas.Image
	Broken *widget.Icon
	Key    string
	// cancel drops the pending request for key (nil when none is pending).
	cancel func()
}

func NewThumbImage(size fyne.Size) *ThumbImage {
	t := &ThumbImage{size: size, bg: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)), Img: &canvas.Image{}, Broken: widget.NewIcon(theme.BrokenImageIcon())}
	t.bg.CornerRadius = theme.InputRadiusSize()
	t.Img.FillMode = canvas.ImageFillContain
	t.Img.ScaleMode = canvas.ImageScaleSmooth
	t.Broken.Hide()
	t.Img.Hide()
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer implements fyne.Widget.
func (t *ThumbImage) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(t.bg, t.Img, container.NewCenter(t.Broken)))
}

// MinSize implements fyne.CanvasObject.
func (t *ThumbImage) MinSize() fyne.Size { return t.size }

func (t *ThumbImage) SetImage(img image.Image) {
	t.Broken.Hide()
	setCanvasImage(t.Img, img)
	t.repaint()
}

func (t *ThumbImage) SetBroken() {
	setCanvasImage(t.Img, nil)
	t.Broken.Show()
	t.repaint()
}

// repaint asks the window to draw the thumbnail again. Refreshing the image alone is not
// enough: Fyne finds an object's window through its last walk of the visible objects, so
// an image that was hidden until now has none, its refresh is lost, and the window showed
// the thumbnail only at the next mouse movement (issue 22).
func (t *ThumbImage) repaint() { t.Refresh() }

// Forget drops a pending request and the key, leaving the thumbnail empty.
func (t *ThumbImage) Forget() {
	if t.cancel != nil {
		t.cancel()
		t.cancel = nil
	}
	t.Key = ""
}

// Clear forgets the thumbnail (Forget) and shows nothing: no image, no broken icon.
func (t *ThumbImage) Clear() {
	t.Forget()
	t.Broken.Hide()
	setCanvasImage(t.Img, nil)
}

// setCanvasImage shows img in ci, hiding ci while there is none (an empty image is
// invisible anyway, and Fyne's software painter cannot draw one).
func setCanvasImage(ci *canvas.Image, img image.Image) {
	ci.Image = img
	if img == nil {
		ci.Hide()
		return
	}
	ci.Show()
	ci.Refresh()
}

// TapThumb is a thumbnail that does something when tapped.
type TapThumb struct {
	ThumbImage
	onTap func()
}

func NewTapThumb(size fyne.Size, onTap func()) *TapThumb {
	t := &TapThumb{onTap: onTap}
	t.size = size
	t.bg = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	t.bg.CornerRadius = theme.InputRadiusSize()
	t.Img = &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
	t.Broken = widget.NewIcon(theme.BrokenImageIcon())
	t.Broken.Hide()
	t.Img.Hide()
	t.ExtendBaseWidget(t)
	return t
}

// Tapped implements fyne.Tappable.
func (t *TapThumb) Tapped(*fyne.PointEvent) {
	if t.onTap != nil {
		t.onTap()
	}
}

// Cursor implements desktop.Cursorable.
func (t *TapThumb) Cursor() desktop.Cursor { return desktop.PointerCursor }

// LoadThumb shows the thumbnail of src (cache key key) in th, now if it is in memory or
// when a worker has made it. A request th made for another key and that is still waiting
// is cancelled: the cell was recycled, and only what is on screen should load.
func (sh *Shell) LoadThumb(th *ThumbImage, key, src string) {
	if th.Key == key && th.cancel != nil {
		return // already asked
	}
	th.Forget()
	th.Key = key
	img, ok, cancel := sh.Thumbs.Request(key, src, func(img image.Image, err error) {
		sh.Post(func() {
			if th.Key != key {
				return
			}
			th.cancel = nil
			if err == thumbcache.ErrDropped {
				return // asked again when the cell is shown again
			}
			if err != nil {
				th.SetBroken()
				return
			}
			th.SetImage(img)
		})
	})
	if ok {
		th.SetImage(img)
		return
	}
	th.cancel = cancel
	th.Broken.Hide()
	setCanvasImage(th.Img, nil)
}

// Pending reports whether the thumbnail waits for a worker to make it.
func (t *ThumbImage) Pending() bool { return t.cancel != nil }

// ForgetThumbs removes the cached thumbnails of images gone from the trash for good, unless
// the same picture is still in lib (runs off the UI goroutine).
func (sh *Shell) ForgetThumbs(lib *gallery.Gallery, gone []gallery.Entry) {
	for _, e := range gone {
		if e.SHA256 == "" {
			continue
		}
		if lib != nil {
			if _, dup := lib.ByHash(e.SHA256); dup {
				continue
			}
		}
		sh.Thumbs.Remove(e.SHA256)
	}
}
