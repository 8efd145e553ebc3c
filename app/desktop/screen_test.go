package desktop

import (
	"testing"

	"fyne.io/fyne/v2"
)

// Issue 22 item 3: on a 1024×600 screen the window no longer opens at 1280×700 (cut off
// at (−128, −50)); it fits, keeps a larger screen's size and never goes below its minimum.
func TestFitWindow(t *testing.T) {
	min := fyne.NewSize(640, 400)
	for _, c := range []struct{ want, work, got fyne.Size }{
		{defaultWindow, fyne.NewSize(1024, 600), fyne.NewSize(1008, 552)},
		{defaultWindow, fyne.NewSize(1366, 740), fyne.NewSize(1280, 692)},
		{defaultWindow, fyne.NewSize(2560, 1400), defaultWindow},
		{defaultWindow, fyne.Size{}, defaultWindow},
		{defaultWindow, fyne.NewSize(300, 200), min},
	} {
		if got := fitWindow(c.want, c.work, min); got != c.got {
			t.Errorf("fitWindow(%v on %v) = %v, want %v", c.want, c.work, got, c.got)
		}
	}
}

// Issue 28: a size remembered on another screen is not used (a 2560×1440 start opened at
// 1008×552, the size made for a 1024×600 screen); on the same screen it is.
func TestRememberedSizeOnAnotherScreen(t *testing.T) {
	small := fyne.NewSize(1024, 600)
	p, ok := windowToSave(fyne.NewSize(1008, 552), small)
	if !ok {
		t.Fatal("a 1008×552 window is not remembered")
	}
	if got := rememberedSize(p, small); got != fyne.NewSize(1008, 552) {
		t.Errorf("same screen: %v", got)
	}
	if got := rememberedSize(p, fyne.NewSize(2560, 1400)); got != defaultWindow {
		t.Errorf("larger screen: %v, want %v", got, defaultWindow)
	}
	if got := rememberedSize(p, fyne.Size{}); got != fyne.NewSize(1008, 552) {
		t.Errorf("screen unknown: %v", got)
	}
	// On the large screen the window opens at three quarters of it.
	if got := startSize(p, fyne.NewSize(2560, 1400)); got != fyne.NewSize(1920, 1050) {
		t.Errorf("start on the larger screen: %v", got)
	}
	if got := startSize(p, small); got != fyne.NewSize(1008, 552) {
		t.Errorf("start on the same screen: %v", got)
	}
}
