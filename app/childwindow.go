package app

import "fyne.io/fyne/v2"

// childShare is the part of the main window a working window (Inpaint) takes at least.
const childShare = 0.85

// largeChild is the size to open a working window at: want, grown to childShare of main
// (the main window's content size) where that is larger, then fitted to the screen
// (fitChild). On a 2560×1440 screen Inpaint opened at 981×700 in a corner (issue 36
// item 24); on a small screen it stays what fitChild makes of want.
func largeChild(want, screen, main fyne.Size) fyne.Size {
	grown := fyne.NewSize(max(want.Width, main.Width*childShare), max(want.Height, main.Height*childShare))
	return fitChild(grown, screen, main)
}

// openLarge sizes w with largeChild for this window's screen and main window, and centres
// it on the screen.
func (sh *shell) openLarge(w fyne.Window, want fyne.Size) {
	var screen fyne.Size
	if sh.opts.ScreenSize != nil {
		screen = sh.opts.ScreenSize()
	}
	w.Resize(largeChild(want, screen, sh.win.Canvas().Size()))
	w.CenterOnScreen()
}
