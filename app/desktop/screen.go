package desktop

import (
	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// defaultWindow is the size the window asks for on first start: it fits a 1366×768 laptop
// screen with its title bar and panel.
var defaultWindow = fyne.NewSize(1280, 700)

// fitWindow is the window size to open at: want (the remembered or default size), made
// smaller where needed so that the window with its frame fits work, the usable part of the
// screen it opens on (zero when unknown), and never below min.
func fitWindow(want, work, min fyne.Size) fyne.Size {
	if work.Width > 0 && work.Height > 0 {
		// Leave room for the window frame and title bar.
		want.Width = fyne.Min(want.Width, work.Width-16)
		want.Height = fyne.Min(want.Height, work.Height-48)
	}
	return want.Max(min)
}

// workArea is the usable part (without panels) of the primary monitor in Fyne units for
// scale (device pixels per unit), zero when unknown. It must run on the main thread
// after GLFW has started (in the lifecycle's OnStarted).
func workArea(scale float32) (size fyne.Size) {
	defer func() {
		if recover() != nil {
			size = fyne.Size{} // no GLFW (another driver): keep the size asked for
		}
	}()
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return fyne.Size{}
	}
	_, _, w, h := m.GetWorkarea()
	if w <= 0 || h <= 0 {
		if mode := m.GetVideoMode(); mode != nil {
			w, h = mode.Width, mode.Height
		}
	}
	if scale <= 0 {
		scale = 1
	}
	return fyne.NewSize(float32(w)/scale, float32(h)/scale)
}

// rememberedSize is the window size saved at the last close, or the default. A size saved
// on another screen than work (the usable screen now; zero when unknown) is not used: a
// window made small on a laptop opened at 1008×552 on a 2560×1440 screen (issue 28).
func rememberedSize(s savedWindow, work fyne.Size) fyne.Size {
	w, h := s.Width, s.Height
	if w < 200 || h < 200 || w > 20000 || h > 20000 {
		return defaultWindow
	}
	sw, sh := s.ScreenWidth, s.ScreenHeight
	if sw > 0 && sh > 0 && work.Width > 0 && work.Height > 0 && (sw != work.Width || sh != work.Height) {
		return defaultWindow
	}
	return fyne.NewSize(w, h)
}

// startSize is the size to open at on the usable screen work: the remembered size for
// that screen, else the default, grown to three quarters of a large screen (2560×1440 got
// the 1280×700 meant for a laptop).
func startSize(s savedWindow, work fyne.Size) fyne.Size {
	want := rememberedSize(s, work)
	if want == defaultWindow && work.Width > 0 && work.Height > 0 {
		want = want.Max(fyne.NewSize(work.Width*3/4, work.Height*3/4))
	}
	return want
}
