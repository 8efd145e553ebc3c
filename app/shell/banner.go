package shell

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// Banner is a dismissible message strip under the header.
type Banner struct {
	// base is opaque under the tinted bg: the banner lies over the image and gallery.
	base *canvas.Rectangle
	bg   *canvas.Rectangle
	icon *widget.Icon
	Text *widget.Label
	Box  *fyne.Container
	// Topic is the condition the message shown belongs to.
	Topic BannerTopic
	// IsError is whether the message shown is an error.
	IsError bool
	// Root is the layout the banner lies in (BannerOverlay): laid out again whenever the
	// banner appears, changes height or goes.
	Root *fyne.Container
}

// relayout lays the banner out again after it changed. A wrapped message knows its height
// only once it has its width, so this repeats (a few times at most) until the banner has
// the height it needs.
func (b *Banner) relayout() {
	if b.Root == nil {
		return
	}
	for range 3 {
		b.Root.Refresh()
		if !b.Box.Visible() || b.Box.Size().Height == min(b.Box.MinSize().Height, b.Root.Size().Height) {
			return
		}
	}
}

// BannerOverlay lays out its first object over the whole area and the banner (its second)
// across the area's foot, as high as its message needs (at most the area). Its minimum
// size is the first object's: a banner never makes the window larger.
type BannerOverlay struct{}

// Layout implements fyne.Layout.
func (BannerOverlay) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
	if b := objs[1]; b.Visible() {
		b.Resize(fyne.NewSize(size.Width, b.MinSize().Height)) // a wrapped text's height follows its width
		h := min(b.MinSize().Height, size.Height)
		b.Resize(fyne.NewSize(size.Width, h))
		b.Move(fyne.NewPos(0, size.Height-h))
	}
}

// MinSize implements fyne.Layout.
func (BannerOverlay) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

// Hide takes the banner away and gives its room back.
func (b *Banner) Hide() {
	b.Box.Hide()
	b.relayout()
}

// NewBanner makes a hidden banner whose close button shows its tooltip in tips.
func NewBanner(tips *widgets.TipLayer) *Banner {
	b := &Banner{base: canvas.NewRectangle(theme.Color(theme.ColorNameBackground)), bg: canvas.NewRectangle(color.Transparent), icon: widget.NewIcon(theme.ErrorIcon()), Text: widget.NewLabel("")}
	b.bg.CornerRadius = theme.InputRadiusSize()
	b.base.CornerRadius = b.bg.CornerRadius
	b.base.StrokeColor = theme.Color(theme.ColorNameSeparator)
	b.base.StrokeWidth = 1
	b.Text.Wrapping = fyne.TextWrapWord
	b.Text.Selectable = true
	closeBtn := widgets.NewTipButton(tips, theme.CancelIcon(), "Close this message", func() { b.Hide() })
	row := container.NewBorder(nil, nil, b.icon, closeBtn, b.Text)
	b.Box = container.NewPadded(container.NewStack(b.base, b.bg, container.NewPadded(row)))
	b.Box.Hide()
	return b
}

// Show puts msg in the banner, as an error or a notice.
func (b *Banner) Show(msg string, isError bool) {
	c := theme.Color(theme.ColorNamePrimary)
	b.icon.SetResource(theme.InfoIcon())
	if isError {
		c = theme.Color(theme.ColorNameError)
		b.icon.SetResource(theme.ErrorIcon())
	}
	r, g, bl, _ := c.RGBA()
	b.bg.FillColor = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: 0x38}
	b.bg.Refresh()
	b.base.FillColor = theme.Color(theme.ColorNameBackground)
	b.base.Refresh()
	b.Text.SetText(Sentence(msg))
	b.IsError = isError
	b.Box.Show()
	b.relayout()
}
