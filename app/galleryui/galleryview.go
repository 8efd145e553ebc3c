package galleryui

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

// View is the grid of saved images with its search, favourites filter, sort order
// and filters (gallerysort.go), selection mode and the Undo strip of the last deletion. The
// grid shows Visible: the gallery's images that pass the filter, in its order.
type View struct {
	sh *shell.Shell
	GalleryDeps

	Grid    *widget.GridWrap
	Count   *widget.Label
	Empty   fyne.CanvasObject // shown while the gallery has no image
	noMatch *widget.Label     // shown while the filter hides every image
	Search  *widgets.ShortcutEntry
	Favs    *widget.Check
	syncing bool // set while code changes the grid's selection

	filter  gallery.Filter // with the order and the filters of galleryFilters
	Visible []gallery.Entry
	galleryFilters

	// Root is the whole view; Header holds its two top rows.
	Root, header *fyne.Container
	// topRow (sort, filter, folder) and trashBar give their height to the grid while
	// selecting (selectroom.go).
	topRow, TrashBar fyne.CanvasObject
	// pendingThumbs are the cells' thumbnails to ask for after the layout pass (thumborder.go).
	pendingThumbs map[*shell.ThumbImage]pendingThumb

	// Selection mode: taps check cells, "Delete N" deletes the checked ones. normalBar
	// (search; the count, favourites and Select) and selectBar take turns below the top row.
	selecting  bool
	checked    map[string]bool
	normalBar  *fyne.Container
	SelectBar  *fyne.Container
	selLabel   *widget.Label
	DeleteSel  *widget.Button
	CompareSel *widget.Button  // A/B compare of two checked images (compare.go)
	cmp        *compare.View   // the open A/B window, or nil
	pendingDel map[string]bool // files whose deletion is under way

	// The Undo strip of the last deletion; undos holds every deletion of this session
	// that can still be undone, the last one last.
	undoBar  *fyne.Container
	undoText *widget.Label
	UndoBtn  *widget.Button
	undos    []undoItem

	// menu is the open (or last) context menu of a cell.
	menu *widget.PopUpMenu
	// revealFile shows a file in the file manager (nil: reveal.File; tests replace it).
	revealFile func(path string) error
	Hidden     hiddenNotice // says when the filter hides images just made (gallerynotice.go)

	// cellIDs is the grid item each cell last showed (-1: none), rowHeight the height of a
	// grid row (see cellShows).
	cellIDs   map[*CellView]int
	rowHeight float32
	// anchor is the image a Shift-click ticks from; mods reads the held modifiers (nil:
	// the driver's; see galleryselect.go).
	anchor string
	mods   func() fyne.KeyModifier
}

// countWidth is the most width the gallery's count asks: enough for "9999 of 9999".
const countWidth = 96

func (g *View) Build() fyne.CanvasObject {
	g.checked = map[string]bool{}
	g.pendingDel = map[string]bool{}
	g.Grid = widget.NewGridWrap(func() int { return len(g.Visible) },
		func() fyne.CanvasObject {
			return NewCellView(g.sh.Tips, g.CellTapped, g.starTapped, g.showCellMenu)
		},
		g.updateCell)
	g.Grid.OnSelected = g.cellSelected

	g.Count = widget.NewLabel("")
	g.Count.SizeName = theme.SizeNameCaptionText
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
	selectBtn := widget.NewButton("Select", func() { g.SetSelecting(true) })
	selectBtn.Importance = widget.LowImportance

	g.selLabel = widget.NewLabel("")
	g.DeleteSel = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), g.deleteChecked)
	g.DeleteSel.Importance = widget.DangerImportance
	done := widget.NewButton("Done", func() { g.SetSelecting(false) })
	g.CompareSel = g.newCompareButton()
	all := widget.NewButton("Select all", g.SelectAll)
	all.Importance = widget.LowImportance
	// The count and Done above, the actions below, wrapping where the gallery is narrow:
	// the bar is never wider than the normal one, so Select mode never widens the window
	// or moves the divider (issue 28 item 4).
	g.selLabel.Truncation = fyne.TextTruncateEllipsis
	g.SelectBar = container.NewVBox(container.NewBorder(nil, nil, nil, done, g.selLabel),
		container.New(&fitRows{RowsLayout: widgets.RowsLayout{MaxRows: 3}}, all, g.CompareSel, g.DeleteSel))
	g.SelectBar.Hide()

	g.Search = widgets.NewShortcutEntry(false, nil) // passes Ctrl+L on (ui.go)
	g.Search.SetPlaceHolder("Search prompts")
	g.Search.OnChanged = func(s string) {
		g.filter.Text = s
		g.Refresh()
		g.Grid.ScrollToTop()
	}
	g.Favs = widget.NewCheck("Favourites", func(on bool) {
		g.filter.Favourites = on
		g.Refresh()
		g.Grid.ScrollToTop()
	})
	// The count stands whole beside the search (asking at most countWidth of the row), the
	// favourites and Select below: at 1024×600 the count shared their row and read
	// "42 imag…" (issue 36 item 20), and a row shared with the sort Select left "Search pr".
	g.normalBar = container.NewVBox(container.NewBorder(nil, nil, nil, shell.NewCappedWidth(countWidth, g.Count), g.Search),
		container.NewBorder(nil, nil, nil, selectBtn, g.Favs))
	g.topRow, g.TrashBar = g.buildHeaderRow(open), g.trashRow()
	g.header = container.NewVBox(
		g.topRow, // the tab above names the gallery
		container.NewStack(g.normalBar, g.SelectBar))
	g.header.Add(g.buildHiddenNotice())

	emptyText := shell.HintAligned("Every image you generate is saved here, with its prompt and settings.", fyne.TextAlignCenter)
	g.Empty = container.NewCenter(container.NewGridWrap(fyne.NewSize(220, 80), emptyText))
	g.noMatch = widget.NewLabel("")
	g.noMatch.Alignment = fyne.TextAlignCenter
	g.noMatch.Wrapping = fyne.TextWrapWord
	g.noMatch.Hide()

	g.undoText = widget.NewLabel("")
	g.undoText.Truncation = fyne.TextTruncateEllipsis
	g.UndoBtn = widget.NewButtonWithIcon("Undo", theme.ContentUndoIcon(), g.undo)
	closeUndo := widgets.NewTipButton(g.sh.Tips, theme.CancelIcon(), "Close", g.hideUndo)
	g.undoBar = container.NewPadded(container.NewBorder(nil, nil, nil, container.NewHBox(g.UndoBtn, closeUndo), g.undoText))
	g.undoBar.Hide()

	// Fyne 2.7 sends Ctrl+Z (Cmd+Z) as fyne.ShortcutUndo; the custom one is for drivers
	// that do not.
	g.sh.Win.Canvas().AddShortcut(&fyne.ShortcutUndo{}, func(fyne.Shortcut) { g.undo() })
	g.sh.Win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { g.undo() })
	g.addSelectAllShortcuts(g.sh.Win.Canvas())
	body := container.NewStack(g.Grid, widgets.NewWheelLayer(g.wheel), g.Empty, container.NewCenter(container.NewGridWrap(fyne.NewSize(220, 80), g.noMatch)))
	g.Root = container.NewBorder(container.NewPadded(g.header), container.NewVBox(g.undoBar, g.TrashBar), nil, nil, body)
	return g.Root
}

// updateCell shows Visible[id] in a recycled cell.
func (g *View) updateCell(id widget.GridWrapItemID, obj fyne.CanvasObject) {
	c := obj.(*CellView)
	if id < 0 || id >= len(g.Visible) || g.sh.Gallery == nil {
		c.File = ""
		c.thumb.Forget()
		c.thumb.SetImage(nil)
		return
	}
	e := g.Visible[id]
	c.File = e.File
	c.setFavourite(e.Favourite)
	c.setCheck(g.selecting, g.checked[e.File])
	g.cellShows(c, id)
	g.queueThumb(c.thumb, id, e.SHA256, g.sh.Gallery.Path(e))
}

// cellSelected shows the tapped image, or checks it in selection mode.
func (g *View) cellSelected(id widget.GridWrapItemID) {
	if g.syncing || id < 0 || id >= len(g.Visible) {
		return
	}
	e := g.Visible[id]
	if !g.selecting {
		g.View.ShowEntry(e, nil)
		return
	}
	g.checked[e.File] = !g.checked[e.File]
	g.anchor = e.File
	g.syncing = true
	g.Grid.Unselect(id)
	g.syncing = false
	g.Grid.RefreshItem(id)
	g.updateSelectBar()
}

// CellTapped is a click on the cell showing file: in selection mode it ticks or unticks
// it, else it selects it in the grid and shows it.
func (g *View) CellTapped(file string) {
	g.sh.Win.Canvas().Unfocus() // keys (Delete, Ctrl+Z) now go to the gallery, not the search
	id := g.IndexOf(file)
	if id < 0 || g.shiftTap(id) {
		return
	}
	if g.selecting {
		g.cellSelected(id)
		return
	}
	g.Grid.Select(id) // selects and, through OnSelected, shows it, unless already selected
	if e, ok := g.View.ShownEntry(); !ok || g.View.FollowsRun() || e.File != file {
		g.cellSelected(id)
	}
}

// Refresh filters the gallery again and redraws the grid after it or the filter changed.
func (g *View) Refresh() {
	sh := g.sh
	g.Visible = nil
	total := 0
	if sh.Gallery != nil {
		g.Visible = g.find()
		total = sh.Gallery.Len()
	}
	n := len(g.Visible)
	switch {
	case total == 0:
		g.Count.SetText("")
	case n < total:
		g.Count.SetText(fmt.Sprintf("%d of %d", n, total))
	case n == 1:
		g.Count.SetText("1 image")
	default:
		g.Count.SetText(fmt.Sprintf("%d images", n))
	}
	if total == 0 {
		g.Empty.Show()
	} else {
		g.Empty.Hide()
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
	g.Grid.Refresh()
	g.syncSelection()
	g.updateHiddenNotice()
	g.View.Update()
	if g.ListChanged != nil {
		g.ListChanged() // the run's grid drops deleted images (issue 36 item 19)
	}
}

// VisibleEntries are the images in the grid's order (search and filters apply).
func (g *View) VisibleEntries() []gallery.Entry { return g.Visible }

// IndexOf is the position of file in the grid, or -1.
func (g *View) IndexOf(file string) int {
	return slices.IndexFunc(g.Visible, func(e gallery.Entry) bool { return e.File == file })
}

// syncSelection selects the viewer's image in the grid (none when it is not shown there).
func (g *View) syncSelection() {
	g.syncing = true
	defer func() { g.syncing = false }()
	i := -1
	if e, ok := g.View.ShownEntry(); ok && !g.selecting {
		i = g.IndexOf(e.File)
	}
	if i < 0 {
		g.Grid.UnselectAll()
		return
	}
	g.selectQuietly(i)
}

// SetSelecting enters or leaves selection mode.
func (g *View) SetSelecting(on bool) {
	g.selecting = on
	clear(g.checked)
	if on {
		g.normalBar.Hide()
		g.SelectBar.Show()
	} else {
		g.SelectBar.Hide()
		g.normalBar.Show()
	}
	g.roomForSelecting(on)
	g.header.Refresh()
	g.updateSelectBar()
	g.Grid.Refresh()
	g.syncSelection()
}

func (g *View) updateSelectBar() {
	n := len(g.checkedEntries())
	g.selLabel.SetText(fmt.Sprintf("%d selected", n))
	g.updateCompareButton(n)
	if n == 0 {
		g.DeleteSel.SetText("Delete")
		g.DeleteSel.Disable()
		return
	}
	g.DeleteSel.SetText(fmt.Sprintf("Delete %d", n))
	g.DeleteSel.Enable()
}

// checkedEntries are the checked images in grid order.
func (g *View) checkedEntries() []gallery.Entry {
	var out []gallery.Entry
	for _, e := range g.Visible {
		if g.checked[e.File] {
			out = append(out, e)
		}
	}
	return out
}

// starTapped toggles the favourite of the image in a cell.
func (g *View) starTapped(file string) {
	if e, ok := g.Entry(file); ok {
		g.ToggleFavourite(e)
	}
}

// Entry returns the visible image file.
func (g *View) Entry(file string) (gallery.Entry, bool) {
	if i := g.IndexOf(file); i >= 0 {
		return g.Visible[i], true
	}
	return gallery.Entry{}, false
}

// ToggleFavourite stars or unstars an image (saved off the UI goroutine).
func (g *View) ToggleFavourite(e gallery.Entry) {
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
			g.View.StarChanged(ne)
			g.Refresh()
		})
	}()
}

// SelectEntry shows the gallery image file in the viewer and selects it in the grid.
func (g *View) SelectEntry(file string, full image.Image) {
	if g.sh.Gallery == nil {
		return
	}
	e, ok := g.sh.Gallery.ByFile(file)
	if !ok {
		return
	}
	g.View.ShowEntry(e, full)
	g.syncSelection()
}

// CellView is one grid cell: the thumbnail, a star to mark it a favourite and, in
// selection mode, a check box. A right click (secondary tap) opens its context menu.
type CellView struct {
	widget.BaseWidget
	thumb  *shell.ThumbImage
	Star   *widgets.TipButton
	check  *widget.Icon
	File   string
	onTap  func(file string)
	onMenu func(file string, at fyne.Position)
}

func NewCellView(tips *widgets.TipLayer, onTap, onStar func(file string), onMenu func(file string, at fyne.Position)) *CellView {
	// The check keeps its room when empty, so the cell's layout never changes.
	c := &CellView{thumb: shell.NewThumbImage(fyne.NewSquareSize(galleryCell)), check: widget.NewIcon(nil), onTap: onTap, onMenu: onMenu}
	c.Star = widgets.NewTipButton(tips, starOutline, "Mark as favourite", func() {
		if c.File != "" {
			onStar(c.File)
		}
	})
	c.ExtendBaseWidget(c)
	return c
}

// CreateRenderer implements fyne.Widget.
func (c *CellView) CreateRenderer() fyne.WidgetRenderer {
	// The padding lets the grid's selection and hover highlight show around the image.
	// The star keeps clear of the grid's scroll bar, which lies over the right edge of the
	// last column (at 1024×600 it cut the second column's ☆, issue 36 item 20).
	clearBar := canvas.NewRectangle(color.Transparent)
	clearBar.SetMinSize(fyne.NewSize(theme.ScrollBarSize()-theme.Padding(), 0))
	top := container.NewHBox(c.check, layout.NewSpacer(), starBackdrop(c.Star), clearBar)
	return widget.NewSimpleRenderer(container.NewStack(container.NewPadded(c.thumb), container.NewBorder(top, nil, nil, nil)))
}

// Tapped implements fyne.Tappable. A cell that takes secondary taps must take primary ones
// too: a real window sends a click to the topmost object taking any kind of tap, so without
// this the grid under the cell never hears of it and nothing gets selected.
func (c *CellView) Tapped(*fyne.PointEvent) {
	if c.File != "" && c.onTap != nil {
		c.onTap(c.File)
	}
}

// TappedSecondary implements fyne.SecondaryTappable: it opens the cell's context menu.
func (c *CellView) TappedSecondary(ev *fyne.PointEvent) {
	if c.File != "" && c.onMenu != nil {
		c.onMenu(c.File, ev.AbsolutePosition)
	}
}

// showCellMenu opens the context menu of the image file at the window position at. Its
// actions act on that image; the viewer keeps showing what it shows.
func (g *View) showCellMenu(file string, at fyne.Position) {
	e, ok := g.Entry(file)
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
func (g *View) cellMenu(e gallery.Entry) *fyne.Menu {
	sh := g.sh
	path := sh.Gallery.Path(e)
	item := func(label string, icon fyne.Resource, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, action)
		it.Icon = icon
		return it
	}
	reuse := item("Reuse settings", theme.ContentUndoIcon(), func() { g.RestoreSettings(e.Meta) })
	reuse.Disabled = !e.HasMeta // nothing to restore (see noSettingsText)
	fav := item("Favourite", starOutline, func() { g.ToggleFavourite(e) })
	if e.Favourite {
		fav = item("Unfavourite", starFilled, func() { g.ToggleFavourite(e) })
	}
	return fyne.NewMenu("",
		item("Render larger", theme.ZoomInIcon(), func() { g.RenderLarger(e) }),
		item("Use as reference", theme.ContentAddIcon(), func() { g.AddReference(path) }),
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
func (g *View) copyEntryImage(e gallery.Entry) { g.View.CopyImage(e, nil) }

// revealEntry shows the gallery image e in the system file manager.
func (g *View) revealEntry(e gallery.Entry) {
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

func (c *CellView) setFavourite(on bool) {
	if on {
		c.Star.SetIcon(starFilled)
		c.Star.Tip = "Remove from favourites"
	} else {
		c.Star.SetIcon(starOutline)
		c.Star.Tip = "Mark as favourite"
	}
}

func (c *CellView) setCheck(selecting, checked bool) {
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

// ShowLastViewed shows the image viewed last time once the gallery has loaded, unless the
// viewer already shows something (a run, or an image picked meanwhile).
func (g *View) ShowLastViewed() {
	f := g.sh.Settings.LastViewed
	if _, shown := g.View.ShownEntry(); f == "" || shown || g.View.FollowsRun() || g.Running() || g.sh.Gallery == nil || g.sh.Gallery.IndexOf(f) < 0 {
		return
	}
	g.SelectEntry(f, nil)
}
