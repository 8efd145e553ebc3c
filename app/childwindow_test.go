package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"kleinbild/app/shell"
)

// Issue 36 item 24: Inpaint opens sized from the main window on a large screen (it opened
// at 981×700 in a corner of a 2560×1440 one), and still fits a small screen.
func TestInpaintSizedFromTheMainWindow(t *testing.T) {
	inpaint := fyne.NewSize(900, 700)
	for _, c := range []struct{ screen, main, want fyne.Size }{
		{fyne.NewSize(2560, 1440), fyne.NewSize(2544, 1392), fyne.NewSize(2544*shell.ChildShare, 1392*shell.ChildShare)},
		{fyne.NewSize(1366, 768), fyne.NewSize(1350, 720), fyne.NewSize(1350*shell.ChildShare, 700)},
		{fyne.NewSize(1024, 600), fyne.NewSize(1008, 552), fyne.NewSize(900, 552)},
		{fyne.Size{}, fyne.Size{}, inpaint},
	} {
		if got := shell.LargeChild(inpaint, c.screen, c.main); abs32(got.Width-c.want.Width) > 0.01 || abs32(got.Height-c.want.Height) > 0.01 {
			t.Errorf("shell.LargeChild(screen %v, main %v) = %v, want %v", c.screen, c.main, got, c.want)
		}
	}
	h := viewerHarness(t, 1)
	u := h.ui
	u.ScreenSize = func() fyne.Size { return fyne.NewSize(2560, 1440) }
	h.win.Resize(fyne.NewSize(2544, 1392))
	u.gal.SelectEntry(h.at(0).File, nil)
	h.waitShownImage(h.at(0))
	m := u.view.OpenInpaint()
	if m == nil {
		t.Fatalf("Inpaint did not open: %q", u.ErrorText())
	}
	if s := m.Parts().Win.Canvas().Size(); s.Width < 2000 || s.Height < 1100 {
		t.Errorf("Inpaint opened at %v beside a 2544×1392 main window", s)
	}
	m.Parts().Win.Close()
}

func abs32(v float32) float32 { return max(v, -v) }
