package app

import (
	"fmt"
	"image"

	"kleinbild/app/reveal"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// galleryCell is the side of a gallery thumbnail cell.
const galleryCell = 112

// galleryView is the grid of saved images.
type galleryView struct {
	grid    *widget.GridWrap
	count   *widget.Label
	empty   fyne.CanvasObject
	syncing bool // set while code changes the selection
}

func (u *UI) buildGallery() fyne.CanvasObject {
	g := &u.gal
	g.grid = widget.NewGridWrap(u.galleryLen,
		// The padding lets the grid's selection and hover highlight show around the image.
		func() fyne.CanvasObject { return container.NewPadded(newThumbImage(fyne.NewSquareSize(galleryCell))) },
		u.updateGalleryCell)
	g.grid.OnSelected = func(id widget.GridWrapItemID) {
		if g.syncing || u.gallery == nil {
			return
		}
		if e, ok := u.gallery.At(id); ok {
			u.showEntry(e, nil)
		}
	}
	g.count = widget.NewLabel("")
	g.count.SizeName = theme.SizeNameCaptionText
	open := iconButton(theme.FolderOpenIcon(), func() {
		if u.gallery == nil {
			return
		}
		dir := u.gallery.Dir()
		go func() {
			if err := reveal.Folder(dir); err != nil {
				u.post(func() { u.showError(err) })
			}
		}()
	})
	header := container.NewBorder(nil, nil, sectionTitle("Gallery"), container.NewHBox(g.count, open))
	emptyText := hintAligned("Every image you generate is saved here, with its prompt and settings.", fyne.TextAlignCenter)
	g.empty = container.NewCenter(container.NewGridWrap(fyne.NewSize(220, 80), emptyText))
	return container.NewBorder(container.NewPadded(header), nil, nil, nil, container.NewStack(g.grid, g.empty))
}

func (u *UI) galleryLen() int {
	if u.gallery == nil {
		return 0
	}
	return u.gallery.Len()
}

func (u *UI) updateGalleryCell(id widget.GridWrapItemID, obj fyne.CanvasObject) {
	th := obj.(*fyne.Container).Objects[0].(*thumbImage)
	e, ok := u.gallery.At(id)
	if !ok {
		th.key = ""
		th.setImage(nil)
		return
	}
	u.loadThumb(th, e.SHA256, u.gallery.Path(e))
}

// refreshGallery redraws the grid after the gallery changed.
func (u *UI) refreshGallery() {
	g := &u.gal
	n := u.galleryLen()
	switch n {
	case 0:
		g.count.SetText("")
		g.empty.Show()
	case 1:
		g.count.SetText("1 image")
		g.empty.Hide()
	default:
		g.count.SetText(fmt.Sprintf("%d images", n))
		g.empty.Hide()
	}
	g.grid.Refresh()
	u.updateViewer()
}

// selectEntry shows the gallery image file in the viewer and selects it in the grid.
func (u *UI) selectEntry(file string, full image.Image) {
	if u.gallery == nil {
		return
	}
	i := u.gallery.IndexOf(file)
	e, ok := u.gallery.At(i)
	if !ok {
		return
	}
	u.showEntry(e, full)
	g := &u.gal
	g.syncing = true
	g.grid.UnselectAll()
	g.grid.Select(i)
	g.syncing = false
}
