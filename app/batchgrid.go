package app

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/widgets"
)

// batchTile is the side of a batch grid tile.
const batchTile = 72

// batchGrid shows the images of a run that made several, to pick one for the viewer. It
// sits under the viewer and is hidden while there is no such run.
type batchGrid struct {
	files []string            // the gallery files shown, in order
	tiles []*tapThumb         // one per file
	marks []*canvas.Rectangle // outlines over the tiles; the shown image's is drawn
	title *widget.Label
	rows  *fyne.Container
	box   *fyne.Container
}

// buildBatchGrid creates the (hidden) grid of a run's images.
func (rn *runner) buildBatchGrid() fyne.CanvasObject {
	b := &rn.batch
	b.title = widget.NewLabel("")
	b.title.SizeName = theme.SizeNameCaptionText
	closeBtn := widgets.NewTipButton(rn.sh.tips, theme.CancelIcon(), "Close this run's images", rn.hideBatch)
	b.rows = container.NewHBox()
	// One row in a horizontal scroll: a long run neither widens nor heightens the window,
	// and a wide window shows as many tiles as fit. The count and Close stand at its end
	// rather than in a row above, which left a 4-image run's picture 196 px at 1024×600;
	// the status line says to pick one.
	b.box = container.NewBorder(nil, nil, nil, container.NewVBox(closeBtn, b.title),
		container.NewHScroll(b.rows))
	b.box.Hide()
	return b.box
}

// showBatch shows entries (a run's images) in the grid.
func (rn *runner) showBatch(entries []gallery.Entry) {
	b := &rn.batch
	b.files = b.files[:0]
	b.tiles = b.tiles[:0]
	b.marks = b.marks[:0]
	b.rows.RemoveAll()
	for _, e := range entries {
		file := e.File
		t := newTapThumb(fyne.NewSquareSize(batchTile), func() { rn.pickBatch(file) })
		mark := canvas.NewRectangle(color.Transparent)
		mark.StrokeWidth = 3
		mark.CornerRadius = theme.InputRadiusSize()
		b.files = append(b.files, file)
		b.tiles = append(b.tiles, t)
		b.marks = append(b.marks, mark)
		b.rows.Add(container.NewStack(t, mark))
		if rn.sh.gallery != nil {
			rn.sh.loadThumb(&t.thumbImage, e.SHA256, rn.sh.gallery.Path(e))
		}
	}
	b.title.SetText(imagesText(len(entries)))
	b.box.Show()
	rn.markBatch(rn.view.batchMark())
}

// hideBatch takes the grid away.
func (rn *runner) hideBatch() {
	b := &rn.batch
	b.files, b.tiles, b.marks = nil, nil, nil
	b.rows.RemoveAll()
	b.box.Hide()
}

// pickBatch shows a run's image in the viewer (a tile's tap).
func (rn *runner) pickBatch(file string) {
	rn.gal.selectEntry(file, nil) // the viewer then moves the outline (markBatch)
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
