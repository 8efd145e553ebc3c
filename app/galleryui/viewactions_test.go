package galleryui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
)

// Issue 28 item 6: every action of the viewer's toolbar row is in its "More" menu, for
// where the row is too narrow to show them all.
func TestMoreMenuHoldsEveryAction(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "square.png", 1024, 1024, nil)
	h := newHarness(t, data, true)
	u := h.ui
	e := h.at(0)
	u.gal.SelectEntry(e.File, nil)
	h.waitShownImage(e)
	test.Tap(u.view.MoreBtn)
	items := u.view.actionMenuItems()
	if len(items) != len(u.view.actionBtns) || items[len(items)-1].Label != "Show in folder" {
		t.Fatalf("menu has %d items", len(items))
	}
	if u.view.actionMenu == nil || !u.view.actionMenu.Visible() {
		t.Error("More did not open its menu")
	}
	// An image without settings: Reuse settings is off in the menu too.
	for _, it := range items {
		if it.Label == "Reuse settings" && !it.Disabled {
			t.Error("Reuse settings offered for an image without settings")
		}
	}
}
