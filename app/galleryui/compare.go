package galleryui

import (
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/compare"
	"kleinbild/app/gallery"
	"kleinbild/app/imagefile"
)

// newCompareButton is the selection bar's Compare button (enabled with two images checked).
func (g *View) newCompareButton() *widget.Button {
	b := widget.NewButtonWithIcon("Compare", theme.ViewRestoreIcon(), g.compareChecked)
	b.Disable()
	return b
}

// updateCompareButton enables Compare when exactly n == 2 images are checked.
func (g *View) updateCompareButton(n int) {
	if n == 2 {
		g.CompareSel.Enable()
	} else {
		g.CompareSel.Disable()
	}
}

// compareChecked opens the A/B window on the two checked images (A the first in the grid).
func (g *View) compareChecked() {
	if es := g.checkedEntries(); len(es) == 2 {
		g.openCompare(es[0], es[1])
	}
}

// openCompare shows a and b in the A/B window, opening it or bringing it forward.
func (g *View) openCompare(a, b gallery.Entry) {
	if g.sh.Gallery == nil {
		return
	}
	if g.cmp == nil {
		g.cmp = compare.New(g.sh, imagefile.Describe, g.openCompare, func(c *compare.View) {
			if g.cmp == c {
				g.cmp = nil
			}
		})
	}
	g.cmp.Open(a, b)
}
