package galleryui

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
)

// zoomHelp is the zoom bar's hint.
const zoomHelp = "Scroll to zoom, drag to move, ← → for the other images"

// zoomBar is the row under a widgets.ZoomImage: a hint, the zoom level, which switches between
// fitted and actual size, and the zoom buttons (with tooltips).
type zoomBar struct {
	img     *widgets.ZoomImage
	hint    *widget.Label
	Level   *widget.Button
	out, in *widgets.TipButton
	extra   *widgets.TipButton // full-size view, or close in the full-size window
	// controls holds the zoom buttons; box is the whole bar.
	controls, box *fyne.Container
	// preview reports that the image is a run's low-resolution preview (nil: never); its
	// zoom in percent would be of the preview's pixels (it read "Fit (1320 %)").
	preview func() bool
}

// newZoomBar builds the bar for z, its tooltips shown in tips; extraIcon, extraTip and
// extra add a last button.
func newZoomBar(tips *widgets.TipLayer, z *widgets.ZoomImage, extraIcon fyne.Resource, extraTip string, extra func()) *zoomBar {
	b := &zoomBar{img: z}
	b.hint = widget.NewLabel(zoomHelp)
	b.hint.SizeName = theme.SizeNameCaptionText
	b.hint.Truncation = fyne.TextTruncateEllipsis
	b.hint.Importance = widget.LowImportance
	b.out = widgets.NewTipButton(tips, theme.ZoomOutIcon(), "Zoom out (−)", z.ZoomOut)
	b.in = widgets.NewTipButton(tips, theme.ZoomInIcon(), "Zoom in (+)", z.ZoomIn)
	b.extra = widgets.NewTipButton(tips, extraIcon, extraTip, extra)
	b.Level = widget.NewButton("Fit", func() { z.ToggleActual(z.Pivot()) })
	b.Level.Importance = widget.LowImportance
	z.OnChanged = b.refresh
	// The level keeps one width, whatever it says, so that the toolbar beside it and the
	// window's minimum width stay put from image to image (issue 36 item 18).
	probe := widget.NewButton("Fit (1000%)", nil)
	levelWidth := canvas.NewRectangle(color.Transparent)
	levelWidth.SetMinSize(fyne.NewSize(probe.MinSize().Width, 0))
	b.controls = container.NewHBox(b.out, container.NewStack(levelWidth, b.Level), b.in, b.extra)
	b.box = container.NewBorder(nil, nil, nil, b.controls, b.hint)
	b.refresh()
	return b
}

// refresh shows the zoom level: "Fit" while fitted, else the percentage (the level
// button then switches back to fit).
func (b *zoomBar) refresh() {
	switch {
	case b.img.Image == nil:
		b.Level.SetText("Fit")
	case b.preview != nil && b.preview():
		b.Level.SetText("Preview")
	case b.img.Fitted():
		b.Level.SetText(fmt.Sprintf("Fit (%d%%)", b.img.Percent()))
	default:
		b.Level.SetText(fmt.Sprintf("%d%%", b.img.Percent()))
	}
}

// fullView is the full-size window: the shown image filling the screen, with the same
// zoom and keys as the viewer; Esc closes it.
type fullView struct {
	win  fyne.Window
	zoom *zoomBar
}

// openFullView shows the shown image in its own full-screen window (or brings that
// window forward).
func (v *Viewer) openFullView() {
	if v.full != nil {
		v.full.win.RequestFocus()
		return
	}
	if v.Image.Image == nil {
		return
	}
	title := "Kleinbild"
	if v.ShownOK && !v.followRun {
		title = v.Shown.File + " – Kleinbild"
	}
	w := v.sh.App.NewWindow(title)
	z := widgets.NewZoomImage()
	f := &fullView{win: w}
	tips := widgets.NewTipLayer(w.Canvas(), v.sh.Post)
	f.zoom = newZoomBar(tips, z, theme.CancelIcon(), "Close (Esc)", w.Close)
	f.zoom.preview = v.showsPreview
	f.zoom.refresh()
	z.SetImage(v.Image.Image)
	w.SetContent(tips.Wrap(container.NewBorder(nil, container.NewPadded(f.zoom.box), nil, nil, z)))
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
	w.Resize(v.sh.ChildSize(fyne.NewSize(1200, 900)))
	w.SetFullScreen(true)
	w.Show()
}
