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

// ZoomBar is the row under a widgets.ZoomImage: a hint, the zoom level, which switches between
// fitted and actual size, and the zoom buttons (with tooltips).
type ZoomBar struct {
	Image   *widgets.ZoomImage
	hint    *widget.Label
	Level   *widget.Button
	Out, In *widgets.TipButton
	extra   *widgets.TipButton // full-size view, or close in the full-size window
	// controls holds the zoom buttons; box is the whole bar.
	controls, box *fyne.Container
	// preview reports that the image is a run's low-resolution preview (nil: never); its
	// zoom in percent would be of the preview's pixels (it read "Fit (1320 %)").
	preview func() bool
}

// newZoomBar builds the bar for z, its tooltips shown in tips; extraIcon, extraTip and
// extra add a last button.
func newZoomBar(tips *widgets.TipLayer, z *widgets.ZoomImage, extraIcon fyne.Resource, extraTip string, extra func()) *ZoomBar {
	b := &ZoomBar{Image: z}
	b.hint = widget.NewLabel(zoomHelp)
	b.hint.SizeName = theme.SizeNameCaptionText
	b.hint.Truncation = fyne.TextTruncateEllipsis
	b.hint.Importance = widget.LowImportance
	b.Out = widgets.NewTipButton(tips, theme.ZoomOutIcon(), "Zoom out (−)", z.ZoomOut)
	b.In = widgets.NewTipButton(tips, theme.ZoomInIcon(), "Zoom in (+)", z.ZoomIn)
	b.extra = widgets.NewTipButton(tips, extraIcon, extraTip, extra)
	b.Level = widget.NewButton("Fit", func() { z.ToggleActual(z.Pivot()) })
	b.Level.Importance = widget.LowImportance
	z.OnChanged = b.refresh
	// The level keeps one width, whatever it says, so that the toolbar beside it and the
	// window's minimum width stay put from image to image (issue 36 item 18).
	probe := widget.NewButton("Fit (1000%)", nil)
	levelWidth := canvas.NewRectangle(color.Transparent)
	levelWidth.SetMinSize(fyne.NewSize(probe.MinSize().Width, 0))
	b.controls = container.NewHBox(b.Out, container.NewStack(levelWidth, b.Level), b.In, b.extra)
	b.box = container.NewBorder(nil, nil, nil, b.controls, b.hint)
	b.refresh()
	return b
}

// refresh shows the zoom level: "Fit" while fitted, else the percentage (the level
// button then switches back to fit).
func (b *ZoomBar) refresh() {
	switch {
	case b.Image.Image == nil:
		b.Level.SetText("Fit")
	case b.preview != nil && b.preview():
		b.Level.SetText("Preview")
	case b.Image.Fitted():
		b.Level.SetText(fmt.Sprintf("Fit (%d%%)", b.Image.Percent()))
	default:
		b.Level.SetText(fmt.Sprintf("%d%%", b.Image.Percent()))
	}
}

// fullView is the full-size window: the shown image filling the screen, with the same
// zoom and keys as the viewer; Esc closes it.
type fullView struct {
	Win  fyne.Window
	Zoom *ZoomBar
}

// OpenFullView shows the shown image in its own full-screen window (or brings that
// window forward).
func (v *Viewer) OpenFullView() {
	if v.Full != nil {
		v.Full.Win.RequestFocus()
		return
	}
	if v.Image.Image == nil {
		return
	}
	title := "Kleinbild"
	if v.ShownOK && !v.FollowRun {
		title = v.Shown.File + " – Kleinbild"
	}
	w := v.sh.App.NewWindow(title)
	z := widgets.NewZoomImage()
	f := &fullView{Win: w}
	tips := widgets.NewTipLayer(w.Canvas(), v.sh.Post)
	f.Zoom = newZoomBar(tips, z, theme.CancelIcon(), "Close (Esc)", w.Close)
	f.Zoom.preview = v.showsPreview
	f.Zoom.refresh()
	z.SetImage(v.Image.Image)
	w.SetContent(tips.Wrap(container.NewBorder(nil, container.NewPadded(f.Zoom.box), nil, nil, z)))
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			w.Close()
			return
		}
		v.typedKey(w.Canvas(), z, ev)
	})
	w.SetOnClosed(func() {
		if v.Full == f {
			v.Full = nil
		}
	})
	v.Full = f
	w.Resize(v.sh.ChildSize(fyne.NewSize(1200, 900)))
	w.SetFullScreen(true)
	w.Show()
}
