package app

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// shownShare is the part of the window's area the viewer's image takes, fitted into the
// image area as the viewer fits it (at most its own size).
func shownShare(h *harness, iw, ih float32) (fyne.Size, float32) {
	relayout(h.win.Canvas().Content())
	z := h.ui.view.Image.Size()
	s := min(z.Width/iw, z.Height/ih, 1)
	shown := fyne.NewSize(iw*s, ih*s)
	win := h.win.Canvas().Size()
	return shown, shown.Width * shown.Height / (win.Width * win.Height)
}

// Issue 36 item 17: the form's column can be hidden, giving the image the window's width
// (a 16:9 image at 1366×768 got 595×334, 22 % of the window), and the choice is remembered;
// Ctrl+L shows the form again to put the cursor in the prompt.
func TestFormCollapsesForTheImage(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "gallery")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, dir, "wide.png", 1024, 576, nil)
	h := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u := h.ui
	h.win.Resize(fyne.NewSize(1350, 720)) // a 1366×768 screen's window
	u.gal.SelectEntry(h.at(0).File, nil)
	h.waitShownImage(h.at(0))
	before, shareBefore := shownShare(h, 1024, 576)

	test.Tap(u.formTog.Button)
	h.settle()
	after, shareAfter := shownShare(h, 1024, 576)
	t.Logf("16:9 at 1350×720: %v (%.0f %%) with the form, %v (%.0f %%) without", before, 100*shareBefore, after, 100*shareAfter)
	if u.formTog.Column.Visible() || shareAfter < 1.5*shareBefore || shareAfter < 0.35 {
		t.Errorf("hiding the form: the image %v (%.0f %%), was %v (%.0f %%)", after, 100*shareAfter, before, 100*shareBefore)
	}
	if !h.savedSettings().FormHidden {
		t.Error("the hidden form is not remembered")
	}
	h.close()

	h2 := newHarness(t, data, tinyModel(t), newFakeGen().open)
	u2 := h2.ui
	if u2.formTog.Column.Visible() {
		t.Fatal("after a restart the form shows again")
	}
	typeShortcut(h2.win.Canvas(), &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault})
	if !u2.formTog.Column.Visible() || h2.win.Canvas().Focused() != u2.ctl.Prompt {
		t.Errorf("Ctrl+L: the form shows %v, the focus is on %T", u2.formTog.Column.Visible(), h2.win.Canvas().Focused())
	}
	if h2.savedSettings().FormHidden {
		t.Error("the form shown again is remembered hidden")
	}
}
