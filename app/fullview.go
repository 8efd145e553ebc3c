package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// zoomHelp is the zoom bar's hint while no button is hovered.
const zoomHelp = "Scroll to zoom, drag to move, ← → for the other images"

// zoomBar is the row under a zoomImage: a hint (which names the hovered button), the
// zoom level, which switches between fitted and actual size, and the zoom buttons.
type zoomBar struct {
	image   *zoomImage
	hint    *widget.Label
	level   *widget.Button
	out, in *hoverButton
	extra   *hoverButton // full-size view, or close in the full-size window
	box     *fyne.Container
}

// newZoomBar builds the bar for z; extraIcon, extraTip and extra add a last button.
func newZoomBar(z *zoomImage, extraIcon fyne.Resource, extraTip string, extra func()) *zoomBar {
	b := &zoomBar{image: z}
	b.hint = widget.NewLabel(zoomHelp)
	b.hint.SizeName = theme.SizeNameCaptionText
	b.hint.Truncation = fyne.TextTruncateEllipsis
	b.hint.Importance = widget.LowImportance
	onHover := func(tip string) {
		if tip == "" {
			tip = zoomHelp
		}
		b.hint.SetText(tip)
	}
	b.out = newHoverButton(theme.ZoomOutIcon(), "Zoom out (−)", z.ZoomOut, onHover)
	b.in = newHoverButton(theme.ZoomInIcon(), "Zoom in (+)", z.ZoomIn, onHover)
	b.extra = newHoverButton(extraIcon, extraTip, extra, onHover)
	b.level = widget.NewButton("Fit", func() { z.ToggleActual(z.pivot()) })
	b.level.Importance = widget.LowImportance
	z.OnChanged = b.refresh
	b.box = container.NewBorder(nil, nil, nil,
		container.NewHBox(b.out, b.level, b.in, b.extra), b.hint)
	return b
}

// refresh shows the zoom level: "Fit" while fitted, else the percentage (the level
// button then switches back to fit).
func (b *zoomBar) refresh() {
	switch {
	case b.image.Image == nil:
		b.level.SetText("Fit")
	case b.image.Fitted():
		b.level.SetText(fmt.Sprintf("Fit (%d%%)", b.image.Percent()))
	default:
		b.level.SetText(fmt.Sprintf("%d%%", b.image.Percent()))
	}
}

// hoverButton is an icon button that names itself while the pointer is over it (Fyne
// buttons have no tooltips): onHover gets its tip, and "" when the pointer leaves.
type hoverButton struct {
	widget.Button
	tip     string
	onHover func(string)
}

func newHoverButton(icon fyne.Resource, tip string, tapped func(), onHover func(string)) *hoverButton {
	b := &hoverButton{tip: tip, onHover: onHover}
	b.Icon = icon
	b.OnTapped = tapped
	b.Importance = widget.LowImportance
	b.ExtendBaseWidget(b)
	return b
}

// MouseIn shows the tip.
func (b *hoverButton) MouseIn(ev *desktop.MouseEvent) {
	b.Button.MouseIn(ev)
	b.onHover(b.tip)
}

// MouseOut hides the tip.
func (b *hoverButton) MouseOut() {
	b.Button.MouseOut()
	b.onHover("")
}

// fullView is the full-size window: the shown image filling the screen, with the same
// zoom and keys as the viewer; Esc closes it.
type fullView struct {
	win  fyne.Window
	zoom *zoomBar
}

// openFullView shows the shown image in its own full-screen window (or brings that
// window forward).
func (v *viewer) openFullView() {
	if v.full != nil {
		v.full.win.RequestFocus()
		return
	}
	if v.image.Image == nil {
		return
	}
	title := "Kleinbild"
	if v.shownOK && !v.followRun {
		title = v.shown.File + " – Kleinbild"
	}
	w := v.u.app.NewWindow(title)
	z := newZoomImage()
	f := &fullView{win: w}
	f.zoom = newZoomBar(z, theme.CancelIcon(), "Close (Esc)", w.Close)
	z.SetImage(v.image.Image)
	w.SetContent(container.NewBorder(nil, container.NewPadded(f.zoom.box), nil, nil, z))
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			w.Close()
			return
		}
		v.typedKey(w.Canvas(), z, ev)
	})
	w.SetOnClosed(func() {
		if v.full == f {
			v.full = nil
		}
	})
	v.full = f
	w.Resize(fyne.NewSize(1200, 900))
	w.SetFullScreen(true)
	w.Show()
}
