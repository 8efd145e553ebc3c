package galleryui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/widgets"
)

// hiddenNotice is the line under the gallery's search that says when images just made
// are hidden by the search or the Favourites filter, with a button that clears the filter.
// It goes once the images show (the filter changed) or when dismissed.
type hiddenNotice struct {
	files []string // the new images the filter hides, newest last
	Bar   *fyne.Container
	Text  *widget.Label
}

// buildHiddenNotice creates the (hidden) notice.
func (g *View) buildHiddenNotice() fyne.CanvasObject {
	n := &g.Hidden
	n.Text = widget.NewLabel("")
	n.Text.Wrapping = fyne.TextWrapWord
	n.Text.Importance = widget.WarningImportance
	show := widget.NewButton("Clear", g.clearFilter)
	dismiss := widgets.NewTipButton(g.sh.Tips, theme.CancelIcon(), "Dismiss", func() {
		n.files = nil
		g.updateHiddenNotice()
	})
	n.Bar = container.NewBorder(nil, nil, nil, container.NewHBox(show, dismiss), n.Text)
	n.Bar.Hide()
	return n.Bar
}

// NoteNew tells the gallery that file was just made: when the filter hides it, the notice
// says so (UI goroutine, after refresh).
func (g *View) NoteNew(file string) {
	if g.sh.Gallery == nil || g.IndexOf(file) >= 0 || slices.Contains(g.Hidden.files, file) {
		return
	}
	g.Hidden.files = append(g.Hidden.files, file)
	g.updateHiddenNotice()
}

// updateHiddenNotice forgets the new images that show now (or are gone) and shows or hides
// the notice.
func (g *View) updateHiddenNotice() {
	n := &g.Hidden
	if n.Bar == nil {
		return
	}
	if g.sh.Gallery == nil {
		n.files = nil
	}
	n.files = slices.DeleteFunc(n.files, func(f string) bool {
		_, ok := g.sh.Gallery.ByFile(f)
		return !ok || g.IndexOf(f) >= 0
	})
	if len(n.files) == 0 {
		n.Bar.Hide()
		return
	}
	var parts []string
	if strings.TrimSpace(g.filter.Text) != "" {
		parts = append(parts, "the search")
	}
	if g.filter.Favourites {
		parts = append(parts, "the Favourites filter")
	}
	if g.filtersOn() > 0 {
		parts = append(parts, "the model, size or date filter")
	}
	by := "the search"
	if len(parts) > 0 {
		by = strings.Join(parts, " and ")
	}
	if len(n.files) == 1 {
		n.Text.SetText("The new image is hidden by " + by + ".")
	} else {
		n.Text.SetText(fmt.Sprintf("%d new images are hidden by %s.", len(n.files), by))
	}
	n.Bar.Show()
}

// clearFilter empties the search and turns the Favourites, model, size and date filters
// off (the notice's Clear).
func (g *View) clearFilter() {
	g.Search.SetText("")     // refreshes through OnChanged, which drops the notice
	g.Favs.SetChecked(false) // likewise
	if g.filtersOn() > 0 {
		g.setFilters("", gallery.Size{}, gallery.AnyTime)
	}
}
