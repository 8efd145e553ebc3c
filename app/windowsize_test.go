package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Inpaint opens no larger than a small screen; Escape closes Inpaint and the file chooser
// (from its path field too). Compare's size and Escape are tested in app/galleryui.
func TestSecondWindowsFitAndEscape(t *testing.T) {
	h := viewerHarness(t, 2)
	u := h.ui
	u.ScreenSize = func() fyne.Size { return fyne.NewSize(1024, 600) }
	u.gal.SelectEntry(h.at(0).File, nil)
	h.waitShownImage(h.at(0))
	m := u.view.OpenInpaint()
	if m == nil {
		t.Fatalf("Inpaint did not open: %q", u.ErrorText())
	}
	if s := m.Parts().Win.Canvas().Size(); s.Width > 1024-16 || s.Height > 600-48 {
		t.Errorf("Inpaint opened at %v on a 1024×600 screen", s)
	}
	open := func(w fyne.Window) bool { return slices.Contains(fyne.CurrentApp().Driver().AllWindows(), w) }
	key(m.Parts().Win.Canvas(), fyne.KeyEscape)
	if open(m.Parts().Win) {
		t.Error("Escape did not close Inpaint")
	}

	choose := findButton(u.Win.Canvas().Content(), "Choose…") // the LoRA folder's
	test.Tap(choose)
	overlay := func() bool { return u.Win.Canvas().Overlays().Top() != nil }
	if u.Chooser == nil || !overlay() {
		t.Fatal("the chooser is not open")
	}
	findEscapeEntry(u.Win.Canvas().Overlays().Top(), "").TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) // its path
	if overlay() || u.Chooser != nil {
		t.Error("Escape in the path field did not close the chooser")
	}
	test.Tap(choose)
	u.Win.Canvas().Unfocus()
	key(u.Win.Canvas(), fyne.KeyEscape)
	if overlay() {
		t.Error("Escape did not close the chooser")
	}
}
