package run

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
	"kleinbild/app/jobs"
	"kleinbild/app/shell"
	"kleinbild/app/widgets"
)

// batchTile is the side of a tile of the run's grid.
const batchTile = 72

// BatchGrid shows the images of a run that made several, to pick one for the viewer. It
// sits under the viewer and is hidden while there is no such run.
type BatchGrid struct {
	run     []gallery.Entry     // all the run's images, deleted ones too (Undo brings one back)
	entries []gallery.Entry     // the run's images shown, in order
	Files   []string            // their files
	Tiles   []*shell.TapThumb   // one per file
	Marks   []*canvas.Rectangle // outlines over the tiles; the shown image's is drawn
	Title   *widget.Label
	rows    *fyne.Container
	Box     *fyne.Container
	// Column is the viewer with the grid under it: laid out again when the grid comes or
	// goes, so that closing it gives its band back to the image (issue 36 item 10).
	Column *fyne.Container
}

// BuildViewColumn puts the (hidden) grid of a run's images under view, the viewer.
func (rn *Runner) BuildViewColumn(view fyne.CanvasObject) fyne.CanvasObject {
	b := &rn.Batch
	b.Title = widget.NewLabel("")
	b.Title.SizeName = theme.SizeNameCaptionText
	closeBtn := widgets.NewTipButton(rn.sh.Tips, theme.CancelIcon(), "Close this run's images", rn.hideBatch)
	b.rows = container.NewHBox()
	// One row in a horizontal scroll: a long run neither widens nor heightens the window,
	// and a wide window shows as many tiles as fit. The count and Close stand at its end
	// rather than in a row above, which left a 4-image run's picture 196 px at 1024×600;
	// the status line says to pick one.
	// The count's column is as wide as "00 images" whatever the count, so that a longer
	// run never widens the window.
	b.Title.SetText(imagesText(jobs.MaxCount * 10))
	countWidth := canvas.NewRectangle(color.Transparent)
	countWidth.SetMinSize(fyne.NewSize(b.Title.MinSize().Width, 0))
	b.Box = container.NewBorder(nil, nil, nil, container.NewVBox(closeBtn, container.NewStack(countWidth, b.Title)),
		container.NewHScroll(b.rows))
	b.Box.Hide()
	b.Column = container.NewBorder(nil, b.Box, nil, nil, view)
	return b.Column
}

// showRun shows entries, a run's images, in the grid, and keeps them for SyncBatch.
func (rn *Runner) showRun(entries []gallery.Entry) {
	rn.Batch.run = slices.Clone(entries)
	rn.showBatch(entries)
}

// showBatch shows entries (a run's images, or those of them still in the gallery) in the grid.
func (rn *Runner) showBatch(entries []gallery.Entry) {
	b := &rn.Batch
	b.entries = slices.Clone(entries)
	b.Files = b.Files[:0]
	b.Tiles = b.Tiles[:0]
	b.Marks = b.Marks[:0]
	b.rows.RemoveAll()
	for _, e := range b.entries {
		file := e.File
		t := shell.NewTapThumb(fyne.NewSquareSize(batchTile), func() { rn.pickBatch(file) })
		mark := canvas.NewRectangle(color.Transparent)
		mark.StrokeWidth = 3
		mark.CornerRadius = theme.InputRadiusSize()
		b.Files = append(b.Files, file)
		b.Tiles = append(b.Tiles, t)
		b.Marks = append(b.Marks, mark)
		b.rows.Add(container.NewStack(t, mark))
		if rn.sh.Gallery != nil {
			rn.sh.LoadThumb(&t.ThumbImage, e.SHA256, rn.sh.Gallery.Path(e))
		}
	}
	b.Title.SetText(imagesText(len(entries)))
	b.Box.Show()
	b.Column.Refresh()
	rn.MarkBatch(rn.View.BatchMark())
}

// SyncBatch follows a change of the gallery: the grid shows the run's images that are in
// it, so a deleted one leaves (issue 36 item 19: it stayed, and the count still said
// "4 images") and one that Undo brings back returns to its place; the grid goes when none
// is left.
func (rn *Runner) SyncBatch() {
	b := &rn.Batch
	if len(b.run) == 0 || rn.sh.Gallery == nil {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(b.run), func(e gallery.Entry) bool { return rn.sh.Gallery.IndexOf(e.File) < 0 })
	switch {
	case len(kept) == 0:
		rn.hideBatch()
	case !slices.EqualFunc(kept, b.entries, func(a, b gallery.Entry) bool { return a.File == b.File }):
		rn.showBatch(kept)
	}
}

// BatchStep is the image delta tiles from file in the grid, stopping at its ends, and
// whether file is in the grid shown: while it is, ← and → go along the grid rather than
// the gallery (issue 36 item 19: they followed the gallery, newest first, and left the run
// at its first tile).
func (rn *Runner) BatchStep(file string, delta int) (string, bool) {
	b := &rn.Batch
	i := slices.Index(b.Files, file)
	if i < 0 || !b.Box.Visible() {
		return "", false
	}
	return b.Files[min(len(b.Files)-1, max(0, i+delta))], true
}

// hideBatch takes the grid away.
func (rn *Runner) hideBatch() {
	b := &rn.Batch
	b.run, b.entries, b.Files, b.Tiles, b.Marks = nil, nil, nil, nil, nil
	b.rows.RemoveAll()
	b.Box.Hide()
	b.Column.Refresh() // the image takes the grid's band back
}

// pickBatch shows a run's image in the viewer (a tile's tap).
func (rn *Runner) pickBatch(file string) {
	rn.Gallery.SelectEntry(file, nil) // the viewer then moves the outline (MarkBatch)
}

// MarkBatch outlines the tile of shown, the gallery image the viewer shows ("" while it
// shows none or follows a run's previews), and none when that image is not in the grid.
// The viewer calls it whenever it changes, so the outline follows gallery picks and arrow
// keys as well as taps here.
func (rn *Runner) MarkBatch(shown string) {
	b := &rn.Batch
	for i, m := range b.Marks {
		c := color.Color(color.Transparent)
		if shown != "" && shown == b.Files[i] {
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
