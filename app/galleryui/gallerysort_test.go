package galleryui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// sortHarness starts the UI over a gallery of four images of two models and two sizes,
// made 0, 2, 10 and 40 days before t1 (the gallery's clock).
func sortHarness(t *testing.T, data string) (*harness, time.Time) {
	t.Helper()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.Local)
	for i, m := range []imageio.Metadata{
		{Settings: schema.Settings{Prompt: "zebra", Width: 32, Height: 24}, Model: "klein-4b", Created: t1.Add(-40 * 24 * time.Hour)},
		{Settings: schema.Settings{Prompt: "apple", Width: 48, Height: 32}, Model: "klein-9b", Created: t1.Add(-10 * 24 * time.Hour)},
		{Settings: schema.Settings{Prompt: "mango", Width: 48, Height: 32}, Model: "klein-4b", Created: t1.Add(-2 * 24 * time.Hour)},
		{Settings: schema.Settings{Prompt: "Banana", Width: 32, Height: 24}, Model: "klein-4b", Created: t1},
	} {
		m.Seed = uint64(i + 1)
		writeTestPNG(t, dir, fmt.Sprintf("img-%02d.png", i), m.Width, m.Height, &m)
	}
	h := newHarness(t, data, false)
	h.ui.gal.now = func() time.Time { return t1.Add(time.Hour) }
	return h, t1
}

// menuItem is the item labelled label of m, or of its submenus (depth first).
func menuItem(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	var find func(m *fyne.Menu) *fyne.MenuItem
	find = func(m *fyne.Menu) *fyne.MenuItem {
		for _, it := range m.Items {
			if it.Label == label {
				return it
			}
			if it.ChildMenu != nil {
				if f := find(it.ChildMenu); f != nil {
					return f
				}
			}
		}
		return nil
	}
	it := find(m)
	if it == nil {
		t.Fatalf("no menu item %q", label)
	}
	return it
}

// The sort Select orders the grid newest first, oldest first or by prompt, and the order
// is remembered for the next start.
func TestGallerySortOrder(t *testing.T) {
	data := t.TempDir()
	h, _ := sortHarness(t, data)
	g := &h.ui.gal
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"Banana", "mango", "apple", "zebra"}) {
		t.Fatalf("newest first: %q", got)
	}
	g.SortSel.SetSelected("Oldest")
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"zebra", "apple", "mango", "Banana"}) {
		t.Errorf("oldest first: %q", got)
	}
	g.SortSel.SetSelected("Prompt A–Z")
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"apple", "Banana", "mango", "zebra"}) {
		t.Errorf("by prompt: %q", got)
	}
	// The search keeps the order.
	test.Type(g.Search, "an")
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"Banana", "mango"}) {
		t.Errorf("searched by prompt: %q", got)
	}
	if h.ui.Settings.GalleryOrder != "prompt" {
		t.Errorf("remembered order %q", h.ui.Settings.GalleryOrder)
	}
	h.close()

	h2, _ := sortHarness(t, data)
	if h2.ui.gal.SortSel.Selected != "Prompt A–Z" {
		t.Errorf("after a restart the order is %q", h2.ui.gal.SortSel.Selected)
	}
	if got := visiblePrompts(h2.ui); !slices.Equal(got, []string{"apple", "Banana", "mango", "zebra"}) {
		t.Errorf("after a restart: %q", got)
	}
}

// The Filter menu offers the models and sizes of the gallery's images and date ranges;
// the filters combine, the button counts them and Clear filters shows every image again.
func TestGalleryFilterMenu(t *testing.T) {
	h, _ := sortHarness(t, t.TempDir())
	g := &h.ui.gal
	test.Tap(g.filterBtn)
	if g.menu == nil || !g.menu.Visible() {
		t.Fatal("the Filter menu did not open")
	}
	m := g.filterMenu()
	for _, l := range []string{"All models", "klein-4b", "klein-9b", "All sizes", "48×32", "32×24", "Any date", "Today", "Last 7 days", "Last 30 days"} {
		menuItem(t, m, l)
	}
	if !menuItem(t, m, "All models").Checked || !menuItem(t, m, "Clear filters").Disabled {
		t.Error("no filter is shown as in use")
	}
	menuItem(t, m, "klein-4b").Action()
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"Banana", "mango", "zebra"}) || g.filterBtn.Tip != "Filtered: klein-4b" || g.Count.Text != "3 of 4" {
		t.Errorf("model filter: %q, button %q, count %q", got, g.filterBtn.Tip, g.Count.Text)
	}
	if g.filterBtn.Importance != widget.HighImportance {
		t.Error("the Filter button does not stand out while a filter is in use")
	}
	menuItem(t, g.filterMenu(), "48×32").Action()
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"mango"}) || g.filterBtn.Tip != "Filtered: klein-4b, 48×32" {
		t.Errorf("model and size: %q, button %q", got, g.filterBtn.Tip)
	}
	m = g.filterMenu()
	if !menuItem(t, m, "klein-4b").Checked || menuItem(t, m, "klein-9b").Checked || !menuItem(t, m, "48×32").Checked {
		t.Error("the menu does not check the filters in use")
	}
	menuItem(t, m, "All sizes").Action()
	menuItem(t, g.filterMenu(), "Today").Action()
	if got := visiblePrompts(h.ui); !slices.Equal(got, []string{"Banana"}) {
		t.Errorf("model and today: %q", got)
	}
	menuItem(t, g.filterMenu(), "All models").Action()
	for _, c := range []struct {
		label string
		want  []string
	}{
		{"Last 7 days", []string{"Banana", "mango"}},
		{"Last 30 days", []string{"Banana", "mango", "apple"}},
		{"Any date", []string{"Banana", "mango", "apple", "zebra"}},
	} {
		menuItem(t, g.filterMenu(), c.label).Action()
		if got := visiblePrompts(h.ui); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q", c.label, got)
		}
	}
	menuItem(t, g.filterMenu(), "klein-9b").Action()
	menuItem(t, g.filterMenu(), "Last 7 days").Action()
	if len(g.Visible) != 0 || !g.noMatch.Visible() || g.noMatch.Text != "No image matches." {
		t.Errorf("nothing matches: %d shown, hint %q", len(g.Visible), g.noMatch.Text)
	}
	menuItem(t, g.filterMenu(), "Clear filters").Action()
	if len(g.Visible) != 4 || g.filterBtn.Tip != filterTip || g.filterBtn.Importance != widget.LowImportance || g.Count.Text != "4 images" {
		t.Errorf("cleared: %d shown, button %q, count %q", len(g.Visible), g.filterBtn.Tip, g.Count.Text)
	}
}

// A new image hidden by a model filter is named in the notice, whose Clear turns the
// filter off.
func TestGalleryFilterHidesNewImage(t *testing.T) {
	h, _ := sortHarness(t, t.TempDir())
	g := &h.ui.gal
	menuItem(t, g.filterMenu(), "klein-9b").Action()
	g.NoteNew("img-03.png")
	if !g.Hidden.Bar.Visible() || g.Hidden.Text.Text != "The new image is hidden by the model, size or date filter." {
		t.Fatalf("notice %v %q", g.Hidden.Bar.Visible(), g.Hidden.Text.Text)
	}
	g.clearFilter()
	if len(g.Visible) != 4 || g.Hidden.Bar.Visible() || g.filtersOn() != 0 {
		t.Errorf("after Clear: %d shown, notice %v", len(g.Visible), g.Hidden.Bar.Visible())
	}
}

// The sort and the filters never widen the gallery: its top row is no wider than the search
// row, whatever the order and the filters in use (a wider one widened the window by 110 px).
func TestGalleryHeaderKeepsItsWidth(t *testing.T) {
	h, _ := sortHarness(t, t.TempDir())
	g := &h.ui.gal
	row := g.header.Objects[0]
	row.Hide()
	without := g.Root.MinSize().Width
	row.Show()
	check := func(when string) {
		t.Helper()
		if got, w := row.MinSize().Width, g.normalBar.MinSize().Width; got > w {
			t.Errorf("%s: the top row needs %.0f px, the search row %.0f", when, got, w)
		}
		if got := g.Root.MinSize().Width; got != without {
			t.Errorf("%s: the gallery needs %.0f px, %.0f without its top row", when, got, without)
		}
	}
	check("at the start")
	g.SortSel.SetSelected("Prompt A–Z")
	menuItem(t, g.filterMenu(), "klein-4b").Action()
	menuItem(t, g.filterMenu(), "48×32").Action()
	menuItem(t, g.filterMenu(), "Last 30 days").Action()
	check("sorted and filtered")
}
