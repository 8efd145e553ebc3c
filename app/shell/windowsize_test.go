package shell

import (
	"testing"

	"fyne.io/fyne/v2"
)

// Issue 28 item 3: second windows fit the screen (or, where its size is not known, the
// main window): Inpaint asked for 900×700 on a 1024×600 screen.
func TestFitChild(t *testing.T) {
	inpaint := fyne.NewSize(900, 700)
	for _, c := range []struct{ screen, main, want fyne.Size }{
		{fyne.NewSize(1024, 600), fyne.NewSize(1008, 552), fyne.NewSize(900, 552)},
		{fyne.NewSize(2560, 1440), fyne.NewSize(1008, 552), inpaint},
		{fyne.Size{}, fyne.NewSize(800, 500), fyne.NewSize(800, 500)},
		{fyne.Size{}, fyne.Size{}, inpaint},
	} {
		if got := FitChild(inpaint, c.screen, c.main); got != c.want {
			t.Errorf("FitChild(%v, screen %v, main %v) = %v, want %v", inpaint, c.screen, c.main, got, c.want)
		}
	}
}
