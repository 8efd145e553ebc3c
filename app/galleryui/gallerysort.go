package galleryui

import (
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/gallery"
	"kleinbild/app/widgets"
)

// SortLabels are the gallery's sort orders as its Select names them, in gallery.Order's
// order.
var SortLabels = []string{gallery.OrderNewest: "Newest", gallery.OrderOldest: "Oldest", gallery.OrderPrompt: "Prompt A–Z"}

// periodLabels are the date filter's choices, in gallery.Period's order.
var periodLabels = []string{gallery.AnyTime: "Any date", gallery.Today: "Today", gallery.Last7Days: "Last 7 days", gallery.Last30Days: "Last 30 days"}

// galleryFilters are the gallery's sort order and its model, size and date filters (the
// Select and the Filter menu beside the count). The order is remembered in the settings.
type galleryFilters struct {
	SortSel *widget.Select
	// filterBtn opens the Filter menu; it stands out while a filter is in use and its tip
	// names them.
	filterBtn *widgets.TipButton
	// period is the date filter; filter.Since is set from it at each refresh.
	period gallery.Period
	// now is the clock of the date filter (nil: time.Now; tests replace it).
	now func() time.Time
}

// buildHeaderRow makes the gallery's top row: the sort Select (set to the remembered order;
// it takes the room left), the Filter button and open, the folder button. Its minimum width
// stays small, whatever the filters and the order (a wider one would widen the window, and
// a changing one would move the divider); the count is on the favourites row.
func (g *View) buildHeaderRow(open fyne.CanvasObject) fyne.CanvasObject {
	g.filter.Order = gallery.ParseOrder(g.sh.Settings.GalleryOrder)
	g.SortSel = widget.NewSelect(SortLabels, nil)
	g.SortSel.PlaceHolder = " " // the Select's minimum width is its placeholder's
	g.SortSel.SetSelectedIndex(int(g.filter.Order))
	g.SortSel.OnChanged = func(string) { g.SetOrder(gallery.Order(g.SortSel.SelectedIndex())) }
	g.filterBtn = widgets.NewTipButton(g.sh.Tips, filterIcon, filterTip, g.showFilterMenu)
	return container.NewBorder(nil, nil, nil, container.NewHBox(g.filterBtn, open), g.SortSel)
}

// filterTip is the Filter button's tip while no filter is in use.
const filterTip = "Filter by model, size and date"

// SetOrder sorts the grid by o and remembers it.
func (g *View) SetOrder(o gallery.Order) {
	if o == g.filter.Order {
		return
	}
	g.filter.Order = o
	g.Refresh()
	g.Grid.ScrollToTop()
	if g.sh.Settings.GalleryOrder != o.String() {
		g.sh.Settings.GalleryOrder = o.String()
		g.sh.Remember(g.sh.Settings)
	}
}

// find is the gallery's images that pass the filter, in its order; it reads no files.
func (g *View) find() []gallery.Entry {
	now := time.Now
	if g.now != nil {
		now = g.now
	}
	g.filter.Since = g.period.Since(now())
	return g.sh.Gallery.Find(g.filter)
}

// filtersOn counts the model, size and date filters in use.
func (g *View) filtersOn() int {
	n := 0
	for _, on := range []bool{g.filter.Model != "", g.filter.Size != (gallery.Size{}), g.period != gallery.AnyTime} {
		if on {
			n++
		}
	}
	return n
}

// updateFilterButton makes the Filter button stand out while filters are in use and name
// them in its tip.
func (g *View) updateFilterButton() {
	var on []string
	if g.filter.Model != "" {
		on = append(on, g.filter.Model)
	}
	if g.filter.Size != (gallery.Size{}) {
		on = append(on, g.filter.Size.String())
	}
	if g.period != gallery.AnyTime {
		on = append(on, strings.ToLower(periodLabels[g.period]))
	}
	g.filterBtn.Tip = filterTip
	g.filterBtn.Importance = widget.LowImportance
	if len(on) > 0 {
		g.filterBtn.Tip = "Filtered: " + strings.Join(on, ", ")
		g.filterBtn.Importance = widget.HighImportance
	}
	g.filterBtn.Refresh()
}

// setFilters applies a model, size and date filter.
func (g *View) setFilters(model string, size gallery.Size, p gallery.Period) {
	g.filter.Model, g.filter.Size, g.period = model, size, p
	g.updateFilterButton()
	g.Refresh()
	g.Grid.ScrollToTop()
}

// showFilterMenu opens the Filter menu under its button.
func (g *View) showFilterMenu() {
	if g.menu != nil {
		g.menu.Hide()
	}
	c := g.sh.Win.Canvas()
	g.menu = widget.NewPopUpMenu(g.filterMenu(), c)
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(g.filterBtn)
	g.menu.ShowAtPosition(pos.Add(fyne.NewPos(0, g.filterBtn.Size().Height)))
}

// filterMenu is the Filter menu: the models and sizes the gallery's index holds, the date
// ranges, each with a check at the one in use, and Clear filters.
func (g *View) filterMenu() *fyne.Menu {
	var facets gallery.Facets
	if g.sh.Gallery != nil {
		facets = g.sh.Gallery.Facets()
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

// filterIcon is Material Design's "filter_list" (Apache 2.0).
var filterIcon = theme.NewThemedResource(fyne.NewStaticResource("filter.svg", []byte(
	`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M10 18h4v-2h-4v2zM3 6v2h18V6H3zm3 7h12v-2H6v2z"/></svg>`)))
