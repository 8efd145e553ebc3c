package galleryui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"

	"kleinbild/app/widgets"
)

// starBackdrop is the disc behind a cell's star: the theme's background, mostly opaque, so
// the star (drawn in the foreground colour) stands out on any thumbnail. Without it the
// dark outline star of the light theme vanished on dark images (issue 22).
func starBackdrop(star fyne.CanvasObject) fyne.CanvasObject {
	bg := canvas.NewCircle(backdropColor())
	return container.NewStack(bg, star)
}

// backdropColor is the theme's background colour at 80 % opacity.
func backdropColor() color.Color {
	r, g, b, _ := theme.Color(theme.ColorNameBackground).RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0xCC}
}

// fitRows is a widgets.RowsLayout that asks only the height of the rows it used at the
// width it was last given: the selection's buttons in one row left two empty rows' height,
// an 80 px band above the grid (issue 36 item 15). Its minimum width stays RowsLayout's.
type fitRows struct {
	widgets.RowsLayout
	width float32
}

func (l *fitRows) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	l.RowsLayout.Layout(objs, size)
}

func (l *fitRows) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := l.RowsLayout.MinSize(objs)
	if l.width >= m.Width {
		m.Height = l.HeightAt(objs, l.width)
	}
	return m
}

// modifiers are the keyboard modifiers held now (the desktop driver knows them; tests set
// g.mods).
func (g *View) modifiers() fyne.KeyModifier {
	if g.mods != nil {
		return g.mods()
	}
	if d, ok := fyne.CurrentApp().Driver().(desktop.Driver); ok {
		return d.CurrentKeyModifiers()
	}
	return 0
}

// shiftTap handles a Shift-click on grid item id: it ticks every image from the anchor
// (the last image ticked, else the one shown) to id, entering selection mode. It reports
// whether Shift was held.
func (g *View) shiftTap(id int) bool {
	if g.modifiers()&fyne.KeyModifierShift == 0 || id < 0 || id >= len(g.Visible) {
		return false
	}
	anchor := g.anchor
	if e, ok := g.View.ShownEntry(); (anchor == "" || !g.selecting) && ok {
		anchor = e.File
	}
	a := g.IndexOf(anchor)
	if a < 0 {
		a = id
	}
	if !g.selecting {
		g.SetSelecting(true)
	}
	for i := min(a, id); i <= max(a, id); i++ {
		g.checked[g.Visible[i].File] = true
	}
	g.anchor = g.Visible[id].File
	g.updateSelectBar()
	g.Grid.Refresh()
	return true
}

// SelectAll ticks every image the grid shows (Ctrl+A, or Select all), entering selection
// mode.
func (g *View) SelectAll() {
	if len(g.Visible) == 0 {
		return
	}
	if !g.selecting {
		g.SetSelecting(true)
	}
	for _, e := range g.Visible {
		g.checked[e.File] = true
	}
	g.updateSelectBar()
	g.Grid.Refresh()
}

// addSelectAllShortcuts makes Ctrl+A (Cmd+A) tick every image while no field has the focus.
func (g *View) addSelectAllShortcuts(c fyne.Canvas) {
	c.AddShortcut(&fyne.ShortcutSelectAll{}, func(fyne.Shortcut) { g.SelectAll() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyA, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { g.SelectAll() })
}

// TypedKey handles a key the window did not give to a widget: Escape leaves selection
// mode, and Delete there deletes every checked image (with Undo), not only the viewed one.
// It reports whether it used the key.
func (g *View) TypedKey(ev *fyne.KeyEvent) bool {
	switch {
	case ev.Name == fyne.KeyEscape && g.selecting:
		g.SetSelecting(false)
		return true
	case ev.Name == fyne.KeyDelete && g.selecting && len(g.checkedEntries()) > 0:
		g.deleteChecked()
		return true
	}
	return false
}
