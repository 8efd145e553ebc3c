package app

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
	bar   *fyne.Container
	text  *widget.Label
}

// buildHiddenNotice creates the (hidden) notice.
func (g *galleryView) buildHiddenNotice() fyne.CanvasObject {
	n := &g.hidden
	n.text = widget.NewLabel("")
	n.text.Wrapping = fyne.TextWrapWord
	n.text.Importance = widget.WarningImportance
	show := widget.NewButton("Clear", g.clearFilter)
	dismiss := widgets.NewTipButton(g.sh.Tips, theme.CancelIcon(), "Dismiss", func() {
		n.files = nil
		g.updateHiddenNotice()
	})
	n.bar = container.NewBorder(nil, nil, nil, container.NewHBox(show, dismiss), n.text)
	n.bar.Hide()
	return n.bar
}

// NoteNew tells the gallery that file was just made: when the filter hides it, the notice
// says so (UI goroutine, after refresh).
func (g *galleryView) NoteNew(file string) {
	if g.sh.Gallery == nil || g.IndexOf(file) >= 0 || slices.Contains(g.hidden.files, file) {
		return
	}
	g.hidden.files = append(g.hidden.files, file)
	g.updateHiddenNotice()
}

// updateHiddenNotice forgets the new images that show now (or are gone) and shows or hides
// the notice.
func (g *galleryView) updateHiddenNotice() {
	n := &g.hidden
	if n.bar == nil {
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
		n.bar.Hide()
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
		n.text.SetText("The new image is hidden by " + by + ".")
	} else {
		n.text.SetText(fmt.Sprintf("%d new images are hidden by %s.", len(n.files), by))
	}
	n.bar.Show()
}

// clearFilter empties the search and turns the Favourites, model, size and date filters
// off (the notice's Clear).
func (g *galleryView) clearFilter() {
	g.search.SetText("")     // refreshes through OnChanged, which drops the notice
	g.favs.SetChecked(false) // likewise
	if g.filtersOn() > 0 {
		g.setFilters("", gallery.Size{}, gallery.AnyTime)
	}
}
