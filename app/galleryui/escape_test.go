package galleryui

import (
	"kleinbild/app/internal/uitest"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Escape closes Trash (as its Close button does), with nothing focused and while one of its
// fields, its list or a check has the focus; and Compare while its wipe slider has it
// (issue 36 item 13: Escape did not close Trash, and was ignored in Compare while a slider
// had the focus).
func TestEscapeClosesTrashAndCompare(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	c := u.Win.Canvas()
	overlay := func() bool { return c.Overlays().Top() != nil }
	u.gal.showTrash()
	h.settle()
	focus := uitest.Escapers(c.Overlays().Top())
	if len(focus) == 0 {
		t.Fatal("Trash: no field takes Escape")
	}
	for _, f := range append([]fyne.Focusable{nil}, focus...) {
		if !overlay() {
			u.gal.showTrash()
			h.settle()
		}
		if f == nil {
			c.Unfocus()
		} else {
			c.Focus(f)
		}
		uitest.TypeKey(c, fyne.KeyEscape)
		h.settle()
		if overlay() {
			t.Errorf("Trash: Escape with %T focused left it open", f)
		}
	}

	u.gal.openCompare(h.at(0), h.at(1))
	cmp := u.gal.cmp
	test.Tap(cmp.Parts().WipeOn)
	cmp.Parts().Win.Canvas().Focus(cmp.Parts().Split)
	uitest.TypeKey(cmp.Parts().Win.Canvas(), fyne.KeyEscape)
	if u.gal.cmp != nil {
		t.Error("Compare: Escape with the wipe slider focused left it open")
	}
}

// Compare opens no larger than a small screen, and Escape closes it.
func TestCompareFitsASmallScreenAndEscape(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	u.ScreenSize = func() fyne.Size { return fyne.NewSize(1024, 600) }
	u.gal.openCompare(h.at(0), h.at(1))
	if s := u.gal.cmp.Parts().Win.Canvas().Size(); s.Width > 1024-16 || s.Height > 600-48 {
		t.Errorf("Compare opened at %v on a 1024×600 screen", s)
	}
	key(u.gal.cmp.Parts().Win.Canvas(), fyne.KeyEscape)
	if u.gal.cmp != nil {
		t.Error("Escape did not close Compare")
	}
}
