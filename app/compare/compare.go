// Package compare is the A/B window: two gallery images side by side, zoomed and panned
// together, or over each other with a wipe.
package compare

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/shell"
	"kleinbild/app/thumbcache"
	"kleinbild/app/widgets"
	"kleinbild/engine/imageio"
	"kleinbild/resources"
)

// View is the A/B window: two gallery images side by side, each with its settings
// underneath, zoomed and panned together, and a button that swaps the sides; or, with
// Wipe, over each other with a slider that moves the border between A (left) and B.
type View struct {
	sh *shell.Shell
	// describe is the line of settings under a side's file name.
	describe func(imageio.Metadata) string
	// closed is set once the window is closed: late images no longer go to it.
	closed  bool
	win     fyne.Window
	entries [2]gallery.Entry
	images  [2]*widgets.ZoomImage
	caps    [2]*widget.Label
	syncing bool // one side's zoom is being copied to the other
	// halves is the side-by-side view; wipePane the wipe (wipe and its split slider),
	// shown instead while wipeOn is checked.
	halves, wipePane fyne.CanvasObject
	wipe             *widgets.Wipe
	split            *widgets.EscapeSlider
	wipeOn           *widgets.EscapeCheck
}

// New builds the A/B window (not shown: see Open). describe is the line of settings under
// a side's file name; Swap sides opens the window on the two images swapped (swap gets B,
// A); closed runs once the window is closed.
func New(sh *shell.Shell, describe func(imageio.Metadata) string, swap func(a, b gallery.Entry), closed func(*View)) *View {
	c := &View{sh: sh, describe: describe, win: sh.App.NewWindow("Compare – Kleinbild")}
	var sides [2]fyne.CanvasObject
	for i, name := range []string{"A", "B"} {
		c.images[i] = widgets.NewZoomImage()
		i := i
		c.images[i].OnChanged = func() { c.syncZoom(i) }
		c.caps[i] = widget.NewLabel("")
		c.caps[i].Wrapping = fyne.TextWrapWord
		title := widget.NewLabelWithStyle(name, fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
		sides[i] = container.NewBorder(title, captionScroll(c.caps[i]), nil, nil, c.images[i])
	}
	// Two equal halves: each image is shown at the same scale, and zooming (the wheel, a
	// double-click) or panning one side does the same to the other (issue 28 item 10:
	// the wheel did nothing, and dragging a divider rescaled each side differently).
	c.halves = container.NewGridWithColumns(2, sides[0], sides[1])
	c.buildWipe()
	swapButton := widget.NewButtonWithIcon("Swap sides", theme.NewThemedResource(resources.Swap), func() {
		swap(c.entries[1], c.entries[0])
	})
	// The hint is cut rather than wrapped: wrapped, at the width it had before the window
	// was laid out, it asked for a window 1508 high (issue 36 defect 2).
	help := shell.Hint("Scroll to zoom both sides, drag to move, double-click for actual size.")
	help.Wrapping, help.Truncation = fyne.TextWrapOff, fyne.TextTruncateEllipsis
	c.win.SetContent(container.NewBorder(nil, container.NewPadded(container.NewBorder(nil, nil, nil, container.NewHBox(c.wipeOn, swapButton),
		help)), nil, nil, container.NewStack(c.halves, c.wipePane)))
	c.win.Resize(sh.ChildSize(fyne.NewSize(1100, 700)))
	c.win.SetOnClosed(func() {
		c.closed = true
		closed(c)
	})
	shell.CloseOnEscape(c.win)
	return c
}

// compareCaptionLines is how many lines of a side's settings show before they scroll.
const compareCaptionLines = 4

// captionScroll shows a side's settings in a fixed height, scrolling: a long prompt never
// makes the window taller than the screen, nor the image smaller.
func captionScroll(l *widget.Label) *container.Scroll {
	s := container.NewVScroll(l)
	line := fyne.MeasureText("Ag", theme.TextSize(), fyne.TextStyle{}).Height + theme.LineSpacing()
	s.SetMinSize(fyne.NewSize(0, compareCaptionLines*line+2*theme.InnerPadding()))
	return s
}

// show puts img (nil: none yet) and e's settings on side i.
func (c *View) show(i int, img image.Image, e gallery.Entry) {
	c.images[i].SetImage(img)
	text := e.File
	if e.HasMeta {
		text += "\n" + c.describe(e.Meta) + "\n" + e.Meta.Prompt
	}
	c.caps[i].SetText(text)
	if c.wipeOn != nil && c.wipeOn.Checked {
		c.wipe.SetImages(c.images[0].Image, c.images[1].Image)
	}
}

// buildWipe makes the wipe view, its slider and the Wipe switch (off).
func (c *View) buildWipe() {
	c.wipe = widgets.NewWipe()
	c.split = widgets.NewEscapeSlider(0, 1)
	c.split.Step = 0.01
	c.split.SetValue(0.5)
	c.split.OnChanged = func(v float64) { c.wipe.SetSplit(float32(v)) }
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	}
	row := container.New(underPicture{c.wipe}, bold("A"), c.split, bold("B"))
	c.wipe.OnSpanChanged = row.Refresh
	c.wipePane = container.NewBorder(nil, row, nil, nil, c.wipe)
	c.wipePane.Hide()
	c.wipeOn = widgets.NewEscapeCheck("Wipe", c.setWipe)
}

// setWipe switches between the wipe (on) and the side-by-side view, keeping the zoom.
func (c *View) setWipe(on bool) {
	if on {
		c.wipe.SetImages(c.images[0].Image, c.images[1].Image)
		c.halves.Hide()
		c.wipePane.Show()
		c.wipe.SetView(c.images[0].View())
		return
	}
	c.wipePane.Hide()
	c.halves.Show()
	c.images[0].SetView(c.wipe.View()) // and B follows (syncZoom)
}

// syncZoom gives the other side the zoom of side i, unless it is being given it.
func (c *View) syncZoom(i int) {
	if c.syncing {
		return
	}
	c.syncing = true
	defer func() { c.syncing = false }()
	scale, off, fit := c.images[i].View()
	c.images[1-i].SetView(scale, off, fit)
}

// load decodes e off the UI goroutine and shows it on side i, unless the
// window was closed or has moved on to other images meanwhile.
func (c *View) load(i int, e gallery.Entry) {
	path := c.sh.Gallery.Path(e)
	c.sh.BG.Add(1)
	go func() {
		defer c.sh.BG.Done()
		img, err := thumbcache.DecodeFile(path)
		c.sh.Post(func() {
			if c.closed || c.entries[i].File != e.File {
				return
			}
			if err != nil {
				c.caps[i].SetText(e.File + "\nThe image cannot be read: " + err.Error())
				return
			}
			c.show(i, img, e)
		})
	}()
}

// Open shows a and b in the window, A on the left, and brings it forward.
func (c *View) Open(a, b gallery.Entry) {
	c.entries = [2]gallery.Entry{a, b}
	for i, e := range c.entries {
		c.show(i, nil, e)
		c.load(i, e)
	}
	c.win.Show()
	c.win.RequestFocus()
}

// Parts are the window's widgets and the images it shows, for the main window's tests.
type Parts struct {
	Win     fyne.Window
	Entries [2]gallery.Entry
	Images  [2]*widgets.ZoomImage
	Caps    [2]*widget.Label
	// Halves is the side-by-side view; WipePane the wipe (Wipe and its Split slider).
	Halves, WipePane fyne.CanvasObject
	Wipe             *widgets.Wipe
	Split            *widgets.EscapeSlider
	WipeOn           *widgets.EscapeCheck
	// TrackInset is how far the slider's track starts inside it (sliderTrackInset).
	TrackInset float32
}

// Parts is the window's widgets and images now (tests).
func (c *View) Parts() Parts {
	return Parts{Win: c.win, Entries: c.entries, Images: c.images, Caps: c.caps, Halves: c.halves,
		WipePane: c.wipePane, Wipe: c.wipe, Split: c.split, WipeOn: c.wipeOn, TrackInset: sliderTrackInset()}
}
