package app

import (
	"image"

	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// thumbImage shows a thumbnail on a rounded placeholder; it remembers which key it shows so
// late results for a recycled cell are ignored.
type thumbImage struct {
	widget.BaseWidget
	size   fyne.Size
	bg     *canvas.Rectangle
	img    *canvas.Image
	broken *widget.Icon
	key    string
	// cancel drops the pending request for key (nil when none is pending).
	cancel func()
}

func newThumbImage(size fyne.Size) *thumbImage {
	t := &thumbImage{size: size, bg: canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground)), img: &canvas.Image{}, broken: widget.NewIcon(theme.BrokenImageIcon())}
	t.bg.CornerRadius = theme.InputRadiusSize()
	t.img.FillMode = canvas.ImageFillContain
	t.img.ScaleMode = canvas.ImageScaleSmooth
	t.broken.Hide()
	t.img.Hide()
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer implements fyne.Widget.
func (t *thumbImage) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(t.bg, t.img, container.NewCenter(t.broken)))
}

// MinSize implements fyne.CanvasObject.
func (t *thumbImage) MinSize() fyne.Size { return t.size }

func (t *thumbImage) setImage(img image.Image) {
	t.broken.Hide()
	setCanvasImage(t.img, img)
	t.repaint()
}

func (t *thumbImage) setBroken() {
	setCanvasImage(t.img, nil)
	t.broken.Show()
	t.repaint()
}

// repaint asks the window to draw the thumbnail again. Refreshing the image alone is not
// enough: Fyne finds an object's window through its last walk of the visible objects, so
// an image that was hidden until now has none, its refresh is lost, and the window showed
// the thumbnail only at the next mouse movement (issue 22).
func (t *thumbImage) repaint() { t.Refresh() }

// forget drops a pending request and the key, leaving the thumbnail empty.
func (t *thumbImage) forget() {
	if t.cancel != nil {
		t.cancel()
		t.cancel = nil
	}
	t.key = ""
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

// tapThumb is a thumbnail that does something when tapped.
type tapThumb struct {
	thumbImage
	onTap func()
}

func newTapThumb(size fyne.Size, onTap func()) *tapThumb {
	t := &tapThumb{onTap: onTap}
	t.size = size
	t.bg = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	t.bg.CornerRadius = theme.InputRadiusSize()
	t.img = &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
	t.broken = widget.NewIcon(theme.BrokenImageIcon())
	t.broken.Hide()
	t.img.Hide()
	t.ExtendBaseWidget(t)
	return t
}

// Tapped implements fyne.Tappable.
func (t *tapThumb) Tapped(*fyne.PointEvent) {
	if t.onTap != nil {
		t.onTap()
	}
}

// Cursor implements desktop.Cursorable.
func (t *tapThumb) Cursor() desktop.Cursor { return desktop.PointerCursor }

// loadThumb shows the thumbnail of src (cache key key) in th, now if it is in memory or
// when a worker has made it. A request th made for another key and that is still waiting
// is cancelled: the cell was recycled, and only what is on screen should load.
func loadThumb(sh *shell.Shell, th *thumbImage, key, src string) {
	if th.key == key && th.cancel != nil {
		return // already asked
	}
	th.forget()
	th.key = key
	img, ok, cancel := sh.Thumbs.Request(key, src, func(img image.Image, err error) {
		sh.Post(func() {
			if th.key != key {
				return
			}
			th.cancel = nil
			if err == thumbcache.ErrDropped {
				return // asked again when the cell is shown again
			}
			if err != nil {
				th.setBroken()
				return
			}
			th.setImage(img)
		})
	})
	if ok {
		th.setImage(img)
		return
	}
	th.cancel = cancel
	th.broken.Hide()
	setCanvasImage(th.img, nil)
}
