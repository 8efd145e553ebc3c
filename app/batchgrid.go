package app

import (
	"fmt"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
)

// batchTile is the side of a batch grid tile.
const batchTile = 72

// batchGrid shows the images of a run that made several, to pick one for the viewer. It
// sits under the viewer and is hidden while there is no such run.
type batchGrid struct {
	entries []gallery.Entry     // the run's images shown, in order
	files   []string            // their files
	tiles   []*shell.TapThumb   // one per file
	marks   []*canvas.Rectangle // outlines over the tiles; the shown image's is drawn
	title   *widget.Label
	rows    *fyne.Container
	box     *fyne.Container
	// column is the viewer with the grid under it: laid out again when the grid comes or
	// goes, so that closing it gives its band back to the image (issue 36 item 10).
	column *fyne.Container
}

// buildViewColumn puts the (hidden) grid of a run's images under view, the viewer.
func (rn *runner) buildViewColumn(view fyne.CanvasObject) fyne.CanvasObject {
	b := &rn.batch
	b.title = widget.NewLabel("")
	b.title.SizeName = theme.SizeNameCaptionText
	closeBtn := widgets.NewTipButton(rn.sh.Tips, theme.CancelIcon(), "Close this run's images", rn.hideBatch)
	b.rows = container.NewHBox()
	// One row in a horizontal scroll: a long run neither widens nor heightens the window,
	// and a wide window shows as many tiles as fit. The count and Close stand at its end
	// rather than in a row above, which left a 4-image run's picture 196 px at 1024×600;
	// the status line says to pick one.
	// The count's column is as wide as "00 images" whatever the count, so that a longer
	// run never widens the window.
	b.title.SetText(imagesText(maxCount * 10))
	countWidth := canvas.NewRectangle(color.Transparent)
	countWidth.SetMinSize(fyne.NewSize(b.title.MinSize().Width, 0))
	b.box = container.NewBorder(nil, nil, nil, container.NewVBox(closeBtn, container.NewStack(countWidth, b.title)),
		container.NewHScroll(b.rows))
	b.box.Hide()
	b.column = container.NewBorder(nil, b.box, nil, nil, view)
	return b.column
}

// showBatch shows entries (a run's images) in the grid.
func (rn *runner) showBatch(entries []gallery.Entry) {
	b := &rn.batch
	b.entries = slices.Clone(entries)
	b.files = b.files[:0]
	b.tiles = b.tiles[:0]
	b.marks = b.marks[:0]
	b.rows.RemoveAll()
	for _, e := range b.entries {
		file := e.File
		t := shell.NewTapThumb(fyne.NewSquareSize(batchTile), func() { rn.pickBatch(file) })
		mark := canvas.NewRectangle(color.Transparent)
		mark.StrokeWidth = 3
		mark.CornerRadius = theme.InputRadiusSize()
		b.files = append(b.files, file)
		b.tiles = append(b.tiles, t)
		b.marks = append(b.marks, mark)
		b.rows.Add(container.NewStack(t, mark))
		if rn.sh.Gallery != nil {
			rn.sh.LoadThumb(&t.ThumbImage, e.SHA256, rn.sh.Gallery.Path(e))
		}
	}
	b.title.SetText(imagesText(len(entries)))
	b.box.Show()
	b.column.Refresh()
	rn.markBatch(rn.view.BatchMark())
}

// syncBatch follows a change of the gallery: the grid drops the images no longer in it
// (deleted), and goes when none is left. (Before, a deleted image stayed in it and the
// count still said "4 images"; issue 36 item 19.)
func (rn *runner) syncBatch() {
	b := &rn.batch
	if len(b.entries) == 0 || rn.sh.Gallery == nil {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(b.entries), func(e gallery.Entry) bool { return rn.sh.Gallery.IndexOf(e.File) < 0 })
	switch {
	case len(kept) == 0:
		rn.hideBatch()
	case len(kept) < len(b.entries):
		rn.showBatch(kept)
	}
}

// batchStep is the image delta tiles from file in the grid, stopping at its ends, and
// whether file is in the grid shown: while it is, ← and → go along the grid rather than
// the gallery (issue 36 item 19: they followed the gallery, newest first, and left the run
// at its first tile).
func (rn *runner) batchStep(file string, delta int) (string, bool) {
	b := &rn.batch
	i := slices.Index(b.files, file)
	if i < 0 || !b.box.Visible() {
		return "", false
	}
	return b.files[min(len(b.files)-1, max(0, i+delta))], true
}

// hideBatch takes the grid away.
func (rn *runner) hideBatch() {
	b := &rn.batch
	b.entries, b.files, b.tiles, b.marks = nil, nil, nil, nil
	b.rows.RemoveAll()
	b.box.Hide()
	b.column.Refresh() // the image takes the grid's band back
}

// pickBatch shows a run's image in the viewer (a tile's tap).
func (rn *runner) pickBatch(file string) {
	rn.gal.SelectEntry(file, nil) // the viewer then moves the outline (markBatch)
}

// markBatch outlines the tile of shown, the gallery image the viewer shows ("" while it
// shows none or follows a run's previews), and none when that image is not in the grid.
// The viewer calls it whenever it changes, so the outline follows gallery picks and arrow
// keys as well as taps here.
func (rn *runner) markBatch(shown string) {
	b := &rn.batch
	for i, m := range b.marks {
		c := color.Color(color.Transparent)
		if shown != "" && shown == b.files[i] {
			c = theme.Color(theme.ColorNamePrimary)
		}
		if m.StrokeColor != c {
			m.StrokeColor = c
			m.Refresh()
		}
	}
}

// imagesText is "1 image" or "n images".
func imagesText(n int) string {
	if n == 1 {
		return "1 image"
	}
	return fmt.Sprintf("%d images", n)
}
