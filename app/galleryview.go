package app

import (
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"

	"kleinbild/app/reveal"
	"kleinbild/app/widgets"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/compare"
	"kleinbild/app/gallery"
	"kleinbild/app/shell"
)

// galleryCell is the side of a gallery thumbnail cell.
const galleryCell = 112

// galleryView is the grid of saved images with its search, favourites filter, sort order
// and filters (gallerysort.go), selection mode and the Undo strip of the last deletion. The
// grid shows visible: the gallery's images that pass the filter, in its order.
type galleryView struct {
	sh *shell.Shell
	galleryDeps

	grid    *widget.GridWrap
	count   *widget.Label
	empty   fyne.CanvasObject // shown while the gallery has no image
	noMatch *widget.Label     // shown while the filter hides every image
	search  *widgets.ShortcutEntry
	favs    *widget.Check
	syncing bool // set while code changes the grid's selection

	filter  gallery.Filter // with the order and the filters of galleryFilters
	visible []gallery.Entry
	galleryFilters

	// root is the whole view; header holds its two top rows.
	root, header *fyne.Container
	// topRow (sort, filter, folder) and trashBar give their height to the grid while
	// selecting (selectroom.go).
	topRow, trashBar fyne.CanvasObject
	// pendingThumbs are the cells' thumbnails to ask for after the layout pass (thumborder.go).
	pendingThumbs map[*shell.ThumbImage]pendingThumb

	// Selection mode: taps check cells, "Delete N" deletes the checked ones. normalBar
	// (search; the count, favourites and Select) and selectBar take turns below the top row.
	selecting  bool
	checked    map[string]bool
	normalBar  *fyne.Container
	selectBar  *fyne.Container
	selLabel   *widget.Label
	deleteSel  *widget.Button
	compareSel *widget.Button  // A/B compare of two checked images (compare.go)
	cmp        *compare.View   // the open A/B window, or nil
	pendingDel map[string]bool // files whose deletion is under way

	// The Undo strip of the last deletion; undos holds every deletion of this session
	// that can still be undone, the last one last.
	undoBar  *fyne.Container
	undoText *widget.Label
	undoBtn  *widget.Button
	undos    []undoItem

	// menu is the open (or last) context menu of a cell.
	menu *widget.PopUpMenu
	// revealFile shows a file in the file manager (nil: reveal.File; tests replace it).
	revealFile func(path string) error
	hidden     hiddenNotice // says when the filter hides images just made (gallerynotice.go)

	// cellIDs is the grid item each cell last showed (-1: none), rowHeight the height of a
	// grid row (see cellShows).
	cellIDs   map[*galleryCellView]int
	rowHeight float32
	// anchor is the image a Shift-click ticks from; mods reads the held modifiers (nil:
	// the driver's; see galleryselect.go).
	anchor string
	mods   func() fyne.KeyModifier
}

// countWidth is the most width the gallery's count asks: enough for "9999 of 9999".
const countWidth = 96

func (g *galleryView) build() fyne.CanvasObject {
	g.checked = map[string]bool{}
	g.pendingDel = map[string]bool{}
	g.grid = widget.NewGridWrap(func() int { return len(g.visible) },
		func() fyne.CanvasObject {
			return newGalleryCellView(g.sh.Tips, g.cellTapped, g.starTapped, g.showCellMenu)
		},
		g.updateCell)
	g.grid.OnSelected = g.cellSelected

	g.count = widget.NewLabel("")
	g.count.SizeName = theme.SizeNameCaptionText
	open := widgets.NewTipButton(g.sh.Tips, theme.FolderOpenIcon(), "Show the gallery folder", func() {
		if g.sh.Gallery == nil {
			return
		}
		dir := g.sh.Gallery.Dir()
		go func() {
			if err := reveal.Folder(dir); err != nil {
				g.sh.Post(func() { g.sh.ShowError(err) })
			}
		}()
	})
	selectBtn := widget.NewButton("Select", func() { g.setSelecting(true) })
	selectBtn.Importance = widget.LowImportance

	g.selLabel = widget.NewLabel("")
	g.deleteSel = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), g.deleteChecked)
	g.deleteSel.Importance = widget.DangerImportance
	done := widget.NewButton("Done", func() { g.setSelecting(false) })
	g.compareSel = g.newCompareButton()
	all := widget.NewButton("Select all", g.selectAll)
	all.Importance = widget.LowImportance
	// The count and Done above, the actions below, wrapping where the gallery is narrow:
	// the bar is never wider than the normal one, so Select mode never widens the window
	// or moves the divider (issue 28 item 4).
	g.selLabel.Truncation = fyne.TextTruncateEllipsis
	g.selectBar = container.NewVBox(container.NewBorder(nil, nil, nil, done, g.selLabel),
		container.New(&fitRows{RowsLayout: widgets.RowsLayout{MaxRows: 3}}, all, g.compareSel, g.deleteSel))
	g.selectBar.Hide()

	g.search = widgets.NewShortcutEntry(false, nil) // passes Ctrl+L on (ui.go)
	g.search.SetPlaceHolder("Search prompts")
	g.search.OnChanged = func(s string) {
		g.filter.Text = s
		g.Refresh()
		g.grid.ScrollToTop()
	}
	g.favs = widget.NewCheck("Favourites", func(on bool) {
		g.filter.Favourites = on
		g.Refresh()
		g.grid.ScrollToTop()
	})
	// The count stands whole beside the search (asking at most countWidth of the row), the
	// favourites and Select below: at 1024×600 the count shared their row and read
	// "42 imag…" (issue 36 item 20), and a row shared with the sort Select left "Search pr".
	g.normalBar = container.NewVBox(container.NewBorder(nil, nil, nil, shell.NewCappedWidth(countWidth, g.count), g.search),
		container.NewBorder(nil, nil, nil, selectBtn, g.favs))
	g.topRow, g.trashBar = g.buildHeaderRow(open), g.trashRow()
	g.header = container.NewVBox(
		g.topRow, // the tab above names the gallery
		container.NewStack(g.normalBar, g.selectBar))
	g.header.Add(g.buildHiddenNotice())

	emptyText := shell.HintAligned("Every image you generate is saved here, with its prompt and settings.", fyne.TextAlignCenter)
	g.empty = container.NewCenter(container.NewGridWrap(fyne.NewSize(220, 80), emptyText))
	g.noMatch = widget.NewLabel("")
	g.noMatch.Alignment = fyne.TextAlignCenter
	g.noMatch.Wrapping = fyne.TextWrapWord
	g.noMatch.Hide()

	g.undoText = widget.NewLabel("")
	g.undoText.Truncation = fyne.TextTruncateEllipsis
	g.undoBtn = widget.NewButtonWithIcon("Undo", theme.ContentUndoIcon(), g.undo)
	closeUndo := widgets.NewTipButton(g.sh.Tips, theme.CancelIcon(), "Close", g.hideUndo)
	g.undoBar = container.NewPadded(container.NewBorder(nil, nil, nil, container.NewHBox(g.undoBtn, closeUndo), g.undoText))
	g.undoBar.Hide()

	// Fyne 2.7 sends Ctrl+Z (Cmd+Z) as fyne.ShortcutUndo; the custom one is for drivers
	// that do not.
	g.sh.Win.Canvas().AddShortcut(&fyne.ShortcutUndo{}, func(fyne.Shortcut) { g.undo() })
	g.sh.Win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { g.undo() })
	g.addSelectAllShortcuts(g.sh.Win.Canvas())
	body := container.NewStack(g.grid, widgets.NewWheelLayer(g.wheel), g.empty, container.NewCenter(container.NewGridWrap(fyne.NewSize(220, 80), g.noMatch)))
	g.root = container.NewBorder(container.NewPadded(g.header), container.NewVBox(g.undoBar, g.trashBar), nil, nil, body)
	return g.root
}

// updateCell shows visible[id] in a recycled cell.
func (g *galleryView) updateCell(id widget.GridWrapItemID, obj fyne.CanvasObject) {
	c := obj.(*galleryCellView)
	if id < 0 || id >= len(g.visible) || g.sh.Gallery == nil {
		c.file = ""
		c.thumb.Forget()
		c.thumb.SetImage(nil)
		return
	}
	e := g.visible[id]
	c.file = e.File
	c.setFavourite(e.Favourite)
	c.setCheck(g.selecting, g.checked[e.File])
	g.cellShows(c, id)
	g.queueThumb(c.thumb, id, e.SHA256, g.sh.Gallery.Path(e))
}

// cellSelected shows the tapped image, or checks it in selection mode.
func (g *galleryView) cellSelected(id widget.GridWrapItemID) {
	if g.syncing || id < 0 || id >= len(g.visible) {
		return
	}
	e := g.visible[id]
	if !g.selecting {
		g.view.ShowEntry(e, nil)
		return
	}
	g.checked[e.File] = !g.checked[e.File]
	g.anchor = e.File
	g.syncing = true
	g.grid.Unselect(id)
	g.syncing = false
	g.grid.RefreshItem(id)
	g.updateSelectBar()
}

// cellTapped is a click on the cell showing file: in selection mode it ticks or unticks
// it, else it selects it in the grid and shows it.
func (g *galleryView) cellTapped(file string) {
	g.sh.Win.Canvas().Unfocus() // keys (Delete, Ctrl+Z) now go to the gallery, not the search
	id := g.IndexOf(file)
	if id < 0 || g.shiftTap(id) {
		return
	}
	if g.selecting {
		g.cellSelected(id)
		return
	}
	g.grid.Select(id) // selects and, through OnSelected, shows it, unless already selected
	if e, ok := g.view.ShownEntry(); !ok || g.view.FollowsRun() || e.File != file {
		g.cellSelected(id)
	}
}

// Refresh filters the gallery again and redraws the grid after it or the filter changed.
func (g *galleryView) Refresh() {
	sh := g.sh
	g.visible = nil
	total := 0
	if sh.Gallery != nil {
		g.visible = g.find()
		total = sh.Gallery.Len()
	}
	n := len(g.visible)
	switch {
	case total == 0:
		g.count.SetText("")
	case n < total:
		g.count.SetText(fmt.Sprintf("%d of %d", n, total))
	case n == 1:
		g.count.SetText("1 image")
	default:
		g.count.SetText(fmt.Sprintf("%d images", n))
	}
	if total == 0 {
		g.empty.Show()
	} else {
		g.empty.Hide()
	}
	switch {
	case total == 0 || n > 0:
		g.noMatch.Hide()
	case g.filter.Favourites && strings.TrimSpace(g.filter.Text) == "" && g.filtersOn() == 0:
		g.noMatch.SetText("No favourites yet. Star an image to find it here.")
		g.noMatch.Show()
	default:
		g.noMatch.SetText("No image matches.")
		g.noMatch.Show()
	}
	for f := range g.checked {
		if g.IndexOf(f) < 0 {
			delete(g.checked, f)
		}
	}
	g.updateSelectBar()
	g.grid.Refresh()
	g.syncSelection()
	g.updateHiddenNotice()
	g.view.Update()
	if g.listChanged != nil {
		g.listChanged() // the run's grid drops deleted images (issue 36 item 19)
	}
}

// VisibleEntries are the images in the grid's order (search and filters apply).
func (g *galleryView) VisibleEntries() []gallery.Entry { return g.visible }

// IndexOf is the position of file in the grid, or -1.
func (g *galleryView) IndexOf(file string) int {
	return slices.IndexFunc(g.visible, func(e gallery.Entry) bool { return e.File == file })
}

// syncSelection selects the viewer's image in the grid (none when it is not shown there).
func (g *galleryView) syncSelection() {
	g.syncing = true
	defer func() { g.syncing = false }()
	i := -1
	if e, ok := g.view.ShownEntry(); ok && !g.selecting {
		i = g.IndexOf(e.File)
	}
	if i < 0 {
		g.grid.UnselectAll()
		return
	}
	g.selectQuietly(i)
}

// setSelecting enters or leaves selection mode.
func (g *galleryView) setSelecting(on bool) {
	g.selecting = on
	clear(g.checked)
	if on {
		g.normalBar.Hide()
		g.selectBar.Show()
	} else {
		g.selectBar.Hide()
		g.normalBar.Show()
	}
	g.roomForSelecting(on)
	g.header.Refresh()
	g.updateSelectBar()
	g.grid.Refresh()
	g.syncSelection()
}

func (g *galleryView) updateSelectBar() {
	n := len(g.checkedEntries())
	g.selLabel.SetText(fmt.Sprintf("%d selected", n))
	g.updateCompareButton(n)
	if n == 0 {
		g.deleteSel.SetText("Delete")
		g.deleteSel.Disable()
		return
	}
	g.deleteSel.SetText(fmt.Sprintf("Delete %d", n))
	g.deleteSel.Enable()
}

// checkedEntries are the checked images in grid order.
func (g *galleryView) checkedEntries() []gallery.Entry {
	var out []gallery.Entry
	for _, e := range g.visible {
		if g.checked[e.File] {
			out = append(out, e)
		}
	}
	return out
}

// starTapped toggles the favourite of the image in a cell.
func (g *galleryView) starTapped(file string) {
	if e, ok := g.entry(file); ok {
		g.toggleFavourite(e)
	}
}

// entry returns the visible image file.
func (g *galleryView) entry(file string) (gallery.Entry, bool) {
	if i := g.IndexOf(file); i >= 0 {
		return g.visible[i], true
	}
	return gallery.Entry{}, false
}

// toggleFavourite stars or unstars an image (saved off the UI goroutine).
func (g *galleryView) toggleFavourite(e gallery.Entry) {
	lib := g.sh.Gallery
	if lib == nil {
		return
	}
	g.sh.BG.Add(1) // Close waits for the index write
	go func() {
		defer g.sh.BG.Done()
		ne, err := lib.ToggleFavourite(e.File)
		g.sh.Post(func() {
			if err != nil {
				g.sh.ShowError(err)
				return
			}
			g.view.StarChanged(ne)
			g.Refresh()
		})
	}()
}

// SelectEntry shows the gallery image file in the viewer and selects it in the grid.
func (g *galleryView) SelectEntry(file string, full image.Image) {
	if g.sh.Gallery == nil {
		return
	}
	e, ok := g.sh.Gallery.ByFile(file)
	if !ok {
		return
	}
	g.view.ShowEntry(e, full)
	g.syncSelection()
}

// galleryCellView is one grid cell: the thumbnail, a star to mark it a favourite and, in
// selection mode, a check box. A right click (secondary tap) opens its context menu.
type galleryCellView struct {
	widget.BaseWidget
	thumb  *shell.ThumbImage
	star   *widgets.TipButton
	check  *widget.Icon
	file   string
	onTap  func(file string)
	onMenu func(file string, at fyne.Position)
}

func newGalleryCellView(tips *widgets.TipLayer, onTap, onStar func(file string), onMenu func(file string, at fyne.Position)) *galleryCellView {
	// The check keeps its room when empty, so the cell's layout never changes.
	c := &galleryCellView{thumb: shell.NewThumbImage(fyne.NewSquareSize(galleryCell)), check: widget.NewIcon(nil), onTap: onTap, onMenu: onMenu}
	c.star = widgets.NewTipButton(tips, starOutline, "Mark as favourite", func() {
		if c.file != "" {
			onStar(c.file)
		}
	})
	c.ExtendBaseWidget(c)
	return c
}

// CreateRenderer implements fyne.Widget.
func (c *galleryCellView) CreateRenderer() fyne.WidgetRenderer {
	// The padding lets the grid's selection and hover highlight show around the image.
	// The star keeps clear of the grid's scroll bar, which lies over the right edge of the
	// last column (at 1024×600 it cut the second column's ☆, issue 36 item 20).
	clearBar := canvas.NewRectangle(color.Transparent)
	clearBar.SetMinSize(fyne.NewSize(theme.ScrollBarSize()-theme.Padding(), 0))
	top := container.NewHBox(c.check, layout.NewSpacer(), starBackdrop(c.star), clearBar)
	return widget.NewSimpleRenderer(container.NewStack(container.NewPadded(c.thumb), container.NewBorder(top, nil, nil, nil)))
}

// Tapped implements fyne.Tappable. A cell that takes secondary taps must take primary ones
// too: a real window sends a click to the topmost object taking any kind of tap, so without
// this the grid under the cell never hears of it and nothing gets selected.
func (c *galleryCellView) Tapped(*fyne.PointEvent) {
	if c.file != "" && c.onTap != nil {
		c.onTap(c.file)
	}
}

// TappedSecondary implements fyne.SecondaryTappable: it opens the cell's context menu.
func (c *galleryCellView) TappedSecondary(ev *fyne.PointEvent) {
	if c.file != "" && c.onMenu != nil {
		c.onMenu(c.file, ev.AbsolutePosition)
	}
}

// showCellMenu opens the context menu of the image file at the window position at. Its
// actions act on that image; the viewer keeps showing what it shows.
func (g *galleryView) showCellMenu(file string, at fyne.Position) {
	e, ok := g.entry(file)
	if !ok || g.sh.Gallery == nil {
		return
	}
	if g.menu != nil {
		g.menu.Hide()
	}
	g.menu = widget.NewPopUpMenu(g.cellMenu(e), g.sh.Win.Canvas())
	g.menu.ShowAtPosition(at)
}

// cellMenu is the context menu of the gallery image e.
func (g *galleryView) cellMenu(e gallery.Entry) *fyne.Menu {
	sh := g.sh
	path := sh.Gallery.Path(e)
	item := func(label string, icon fyne.Resource, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, action)
		it.Icon = icon
		return it
	}
	reuse := item("Reuse settings", theme.ContentUndoIcon(), func() { g.restoreSettings(e.Meta) })
	reuse.Disabled = !e.HasMeta // nothing to restore (see noSettingsText)
	fav := item("Favourite", starOutline, func() { g.toggleFavourite(e) })
	if e.Favourite {
		fav = item("Unfavourite", starFilled, func() { g.toggleFavourite(e) })
	}
	return fyne.NewMenu("",
		item("Render larger", theme.ZoomInIcon(), func() { g.renderLarger(e) }),
		item("Use as reference", theme.ContentAddIcon(), func() { g.addReference(path) }),
		reuse,
		fav,
		fyne.NewMenuItemSeparator(),
		item("Copy image", theme.ContentCopyIcon(), func() { g.copyEntryImage(e) }),
		item("Show in folder", theme.FolderOpenIcon(), func() { g.revealEntry(e) }),
		fyne.NewMenuItemSeparator(),
		item("Delete", theme.DeleteIcon(), func() { g.DeleteEntry(e) }),
	)
}

// copyEntryImage puts the pixels of the gallery image e on the clipboard, as PNG (read off
// the UI goroutine).
func (g *galleryView) copyEntryImage(e gallery.Entry) { g.view.CopyImage(e, nil) }

// revealEntry shows the gallery image e in the system file manager.
func (g *galleryView) revealEntry(e gallery.Entry) {
	show := g.revealFile
	if show == nil {
		show = reveal.File
	}
	p := g.sh.Gallery.Path(e)
	go func() {
		if err := show(p); err != nil {
			g.sh.Post(func() { g.sh.ShowError(err) })
		}
	}()
}

func (c *galleryCellView) setFavourite(on bool) {
	if on {
		c.star.SetIcon(starFilled)
		c.star.Tip = "Remove from favourites"
	} else {
		c.star.SetIcon(starOutline)
		c.star.Tip = "Mark as favourite"
	}
}

func (c *galleryCellView) setCheck(selecting, checked bool) {
	switch {
	case !selecting:
		c.check.SetResource(nil)
	case checked:
		c.check.SetResource(theme.CheckButtonCheckedIcon())
	default:
		c.check.SetResource(theme.CheckButtonIcon())
	}
}

// The star icons (Material Design "star" and "star_border", Apache 2.0).
var (
	starOutline = theme.NewThemedResource(fyne.NewStaticResource("star-outline.svg", []byte(
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M22 9.24l-7.19-.62L12 2 9.19 8.63 2 9.24l5.46 4.73L5.82 21 12 17.27 18.18 21l-1.63-7.03L22 9.24zM12 15.4l-3.76 2.27 1-4.28-3.32-2.88 4.38-.38L12 6.1l1.71 4.04 4.38.38-3.32 2.88 1 4.28L12 15.4z"/></svg>`)))
	starFilled = theme.NewColoredResource(fyne.NewStaticResource("star.svg", []byte(
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 17.27L18.18 21l-1.64-7.03L22 9.24l-7.19-.61L12 2 9.19 8.63 2 9.24l5.46 4.73L5.82 21z"/></svg>`)), theme.ColorNameWarning)
)
