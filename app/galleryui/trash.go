package galleryui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/trashview"
)

// afterTrashChange shows restored images and drops the Undo steps whose images have all
// left the trash (restored or deleted for good).
func (g *View) afterTrashChange() {
	if lib := g.sh.Gallery; lib != nil {
		g.undos = slices.DeleteFunc(g.undos, func(it undoItem) bool { return !lib.InTrash(it.batch) })
	}
	if g.undoBar.Visible() || len(g.undos) == 0 {
		g.showUndoBar()
	}
	g.Refresh()
}

// showTrash opens the Trash view.
func (g *View) showTrash() *trashview.View {
	return trashview.Show(g.sh, g.afterTrashChange)
}

// trashRow is the gallery's bottom row with the button that opens the Trash view (kept
// out of the header, whose width sets the window's smallest width).
func (g *View) trashRow() fyne.CanvasObject {
	b := widget.NewButtonWithIcon("Trash…", theme.DeleteIcon(), func() { g.showTrash() })
	b.Importance = widget.LowImportance
	return container.NewHBox(layout.NewSpacer(), b)
}
