package shell

import (
	"fyne.io/fyne/v2"

	"kleinbild/app/widgets"
)

// windowFrame is the room a window's frame and title bar take around its content.
var windowFrame = fyne.NewSize(16, 48)

// FitChild is the size to open a second window (Inpaint, Compare, the full-size view) at:
// want, made smaller to fit screen (the usable part of the screen, zero when unknown) with
// its frame, or else main, the main window's content size, which fits the screen (issue 28
// item 3: Inpaint opened at 900×700 on a 1024×600 screen, its Generate button off-screen).
func FitChild(want, screen, main fyne.Size) fyne.Size {
	bound := main
	if screen.Width > 0 && screen.Height > 0 {
		bound = screen.Subtract(windowFrame)
	}
	if bound.Width <= 0 || bound.Height <= 0 {
		return want
	}
	return fyne.NewSize(min(want.Width, bound.Width), min(want.Height, bound.Height))
}

// ChildSize is FitChild for this window's screen (ScreenSize) and main window.
func (sh *Shell) ChildSize(want fyne.Size) fyne.Size {
	var screen fyne.Size
	if sh.ScreenSize != nil {
		screen = sh.ScreenSize()
	}
	return FitChild(want, screen, sh.Win.Canvas().Size())
}

// CloseOnEscape makes Escape close w, also while one of its fields, sliders or checks has
// the keyboard focus (the Escapers in its content; issue 36 item 13: Escape was ignored in
// Inpaint and Compare while a field or slider had the focus).
func CloseOnEscape(w fyne.Window) {
	widgets.OnEscapeIn(w.Content(), w.Close)
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			w.Close()
		}
	})
}

// ChildShare is the part of the main window a working window (Inpaint) takes at least.
const ChildShare = 0.85

// LargeChild is the size to open a working window at: want, grown to ChildShare of main
// (the main window's content size) where that is larger, then fitted to the screen
// (FitChild). On a 2560×1440 screen Inpaint opened at 981×700 in a corner (issue 36
// item 24); on a small screen it stays what FitChild makes of want.
func LargeChild(want, screen, main fyne.Size) fyne.Size {
	grown := fyne.NewSize(max(want.Width, main.Width*ChildShare), max(want.Height, main.Height*ChildShare))
	return FitChild(grown, screen, main)
}

// OpenLarge sizes w with LargeChild for this window's screen and main window, and centres
// it on the screen.
func (sh *Shell) OpenLarge(w fyne.Window, want fyne.Size) {
	var screen fyne.Size
	if sh.ScreenSize != nil {
		screen = sh.ScreenSize()
	}
	w.Resize(LargeChild(want, screen, sh.Win.Canvas().Size()))
	w.CenterOnScreen()
}
