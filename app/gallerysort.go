package app

import (
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
)

// sortLabels are the gallery's sort orders as its Select names them, in gallery.Order's
// order.
var sortLabels = []string{gallery.OrderNewest: "Newest", gallery.OrderOldest: "Oldest", gallery.OrderPrompt: "Prompt A–Z"}

// periodLabels are the date filter's choices, in gallery.Period's order.
var periodLabels = []string{gallery.AnyTime: "Any date", gallery.Today: "Today", gallery.Last7Days: "Last 7 days", gallery.Last30Days: "Last 30 days"}

// galleryFilters are the gallery's sort order and its model, size and date filters (the
// Select and the Filter menu beside the count). The order is remembered in the settings.
type galleryFilters struct {
	sortSel   *widget.Select
	filterBtn *widget.Button
	// period is the date filter; filter.Since is set from it at each refresh.
	period gallery.Period
	// now is the clock of the date filter (nil: time.Now; tests replace it).
	now func() time.Time
}

// buildSortAndFilter makes the sort Select (set to the remembered order) and the Filter
// button.
func (g *galleryView) buildSortAndFilter() fyne.CanvasObject {
	g.filter.Order = gallery.ParseOrder(g.sh.settings.GalleryOrder)
	g.sortSel = widget.NewSelect(sortLabels, nil)
	g.sortSel.SetSelectedIndex(int(g.filter.Order))
	g.sortSel.OnChanged = func(string) { g.setOrder(gallery.Order(g.sortSel.SelectedIndex())) }
	g.filterBtn = widget.NewButtonWithIcon("Filter", theme.MenuDropDownIcon(), g.showFilterMenu)
	g.filterBtn.Importance = widget.LowImportance
	return container.NewHBox(g.sortSel, g.filterBtn)
}

// setOrder sorts the grid by o and remembers it.
func (g *galleryView) setOrder(o gallery.Order) {
	if o == g.filter.Order {
		return
	}
	g.filter.Order = o
	g.refresh()
	g.grid.ScrollToTop()
	if g.sh.settings.GalleryOrder != o.String() {
		g.sh.settings.GalleryOrder = o.String()
		g.sh.remember(g.sh.settings)
	}
}

// find is the gallery's images that pass the filter, in its order; it reads no files.
func (g *galleryView) find() []gallery.Entry {
	now := time.Now
	if g.now != nil {
		now = g.now
	}
	g.filter.Since = g.period.Since(now())
	return g.sh.gallery.Find(g.filter)
}

// filtersOn counts the model, size and date filters in use.
func (g *galleryView) filtersOn() int {
	n := 0
	for _, on := range []bool{g.filter.Model != "", g.filter.Size != (gallery.Size{}), g.period != gallery.AnyTime} {
		if on {
			n++
		}
	}
	return n
}

// updateFilterButton shows on the Filter button how many filters are in use.
func (g *galleryView) updateFilterButton() {
	t := "Filter"
	if n := g.filtersOn(); n > 0 {
		t = fmt.Sprintf("Filter (%d)", n)
	}
	if g.filterBtn.Text != t {
		g.filterBtn.SetText(t)
	}
}

// setFilters applies a model, size and date filter.
func (g *galleryView) setFilters(model string, size gallery.Size, p gallery.Period) {
	g.filter.Model, g.filter.Size, g.period = model, size, p
	g.updateFilterButton()
	g.refresh()
	g.grid.ScrollToTop()
}

// showFilterMenu opens the Filter menu under its button.
func (g *galleryView) showFilterMenu() {
	if g.menu != nil {
		g.menu.Hide()
	}
	c := g.sh.win.Canvas()
	g.menu = widget.NewPopUpMenu(g.filterMenu(), c)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(g.filterBtn)
	g.menu.ShowAtPosition(pos.Add(fyne.NewPos(0, g.filterBtn.Size().Height)))
}

// filterMenu is the Filter menu: the models and sizes the gallery's index holds, the date
// ranges, each with a check at the one in use, and Clear filters.
func (g *galleryView) filterMenu() *fyne.Menu {
	var facets gallery.Facets
	if g.sh.gallery != nil {
		facets = g.sh.gallery.Facets()
	}
	f := g.filter
	choice := func(label string, on bool, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, action)
		it.Checked = on
		return it
	}
	models := []*fyne.MenuItem{choice("All models", f.Model == "", func() { g.setFilters("", f.Size, g.period) })}
	if f.Model != "" && !slices.Contains(facets.Models, f.Model) {
		facets.Models = append(facets.Models, f.Model) // its images were deleted: still offered, checked
	}
	for _, m := range facets.Models {
		models = append(models, choice(m, f.Model == m, func() { g.setFilters(m, f.Size, g.period) }))
	}
	sizes := []*fyne.MenuItem{choice("All sizes", f.Size == (gallery.Size{}), func() { g.setFilters(f.Model, gallery.Size{}, g.period) })}
	if f.Size != (gallery.Size{}) && !slices.Contains(facets.Sizes, f.Size) {
		facets.Sizes = append(facets.Sizes, f.Size)
	}
	for _, s := range facets.Sizes {
		sizes = append(sizes, choice(s.String(), f.Size == s, func() { g.setFilters(f.Model, s, g.period) }))
	}
	var dates []*fyne.MenuItem
	for i, l := range periodLabels {
		p := gallery.Period(i)
		dates = append(dates, choice(l, g.period == p, func() { g.setFilters(f.Model, f.Size, p) }))
	}
	sub := func(label string, items []*fyne.MenuItem) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.ChildMenu = fyne.NewMenu("", items...)
		return it
	}
	clearAll := fyne.NewMenuItem("Clear filters", func() { g.setFilters("", gallery.Size{}, gallery.AnyTime) })
	clearAll.Disabled = g.filtersOn() == 0
	return fyne.NewMenu("", sub("Model", models), sub("Size", sizes), sub("Date", dates), fyne.NewMenuItemSeparator(), clearAll)
}
