// Package desktop runs Kleinbild's user interface in a real window. It is the only package
// that imports fyne.io/fyne/v2/app (which needs cgo and a display); the interface itself
// lives in package app.
package desktop

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"

	"fyne.io/fyne/v2"

	"kleinbild/app"
	"kleinbild/app/widgets"
	"kleinbild/resources"
)

// AppID is the application identifier (notifications, desktop integration; see newFyneApp).
const AppID = "io.github.kleinbild"

// Run opens the Kleinbild window and blocks until it is closed. With opts.AutoGenerate or
// opts.ScreenshotPath it runs UI.Automate once the window is up, and quits afterwards when
// opts.QuitAfter or opts.ScreenshotPath is set; the automatic run's error is returned.
//
// The interface locks the data folder: a second instance on the same folder opens
// read-only instead of overwriting the first one's gallery index (see app.NewUI).
//
// A display that is missing or cannot be opened, and a panic of Fyne or GLFW before the
// window is up (one in GLFW's initCursors was seen while another instance started), are
// errors rather than a crash with a stack trace.
func Run(opts app.Options) (err error) {
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		if err := openDisplay(os.Getenv("DISPLAY")); err != nil {
			return err
		}
	}
	var up atomic.Bool // the window is up: later panics are bugs, not a failed start
	defer func() {
		if r := recover(); r != nil {
			if up.Load() {
				panic(r)
			}
			err = fmt.Errorf("the window could not be opened: %v", r)
		}
	}()
	a := newFyneApp(opts.Version)
	sizeFile := windowFile()
	saved, loadErr := loadWindow(sizeFile, legacyPrefsFile())
	if loadErr != nil {
		fmt.Fprintln(os.Stderr, "kleinbild:", loadErr) // the window opens at the default size
	}
	a.SetIcon(resources.Icon)
	a.Settings().SetTheme(widgets.Theme())
	w := a.NewWindow("Kleinbild")
	w.SetIcon(resources.Icon)
	opts.ScreenSize = func() fyne.Size { return workArea(w.Canvas().Scale()) }
	u, err := app.NewUI(a, w, opts)
	if err != nil {
		return fmt.Errorf("start the interface: %w", err)
	}
	// The remembered size (or one that fits a 1366×768 laptop screen), made smaller once
	// GLFW can tell the screen's size: the window fits the screen it opens on.
	w.Resize(rememberedSize(saved, fyne.Size{}))
	w.CenterOnScreen()
	w.SetMaster()
	autoErr := make(chan error, 1)
	// The interface closes off the main thread once the window goes, and a watchdog ends
	// the process should Fyne's own shutdown stall (see shutdown).
	sd := newShutdown(u.Close, func() int {
		select {
		case err := <-autoErr:
			if err != nil {
				fmt.Fprintln(os.Stderr, "kleinbild:", err)
				return 1
			}
		default:
		}
		return 0
	})
	var closed atomic.Bool // the window has closed: the interface is stopped
	w.SetOnClosed(func() {
		closed.Store(true)
		if s, ok := windowToSave(w.Canvas().Size(), workArea(w.Canvas().Scale())); ok {
			if err := saveWindow(sizeFile, s); err != nil {
				fmt.Fprintln(os.Stderr, "kleinbild:", err)
			}
		}
		u.Stop()
		sd.begin()
	})
	a.Lifecycle().SetOnStopped(func() {
		closed.Store(true)
		u.Stop()
		sd.begin()
	})

	fitScreen := func() {
		work := workArea(w.Canvas().Scale())
		want := startSize(saved, work)
		if s := fitWindow(want, work, fyne.NewSize(640, 400)); s != w.Canvas().Size() {
			w.Resize(s)
			w.CenterOnScreen()
		}
	}
	if opts.AutoGenerate || opts.ScreenshotPath != "" {
		a.Lifecycle().SetOnStarted(func() {
			up.Store(true)
			fitScreen()
			go func() {
				err := u.Automate()
				autoErr <- err
				if opts.QuitAfter || opts.ScreenshotPath != "" {
					u.Stop()
					sd.begin()
					fyne.Do(a.Quit)
				}
			}()
		})
	} else {
		a.Lifecycle().SetOnStarted(func() {
			up.Store(true)
			fitScreen()
		})
		autoErr <- nil
	}
	showAndRun(w, &closed, os.Stderr)
	if !sd.finish() {
		return fmt.Errorf("closing the window took over %v", shutdownGrace)
	}
	select {
	case err := <-autoErr:
		return err
	default:
		return nil // the window was closed before the automatic run ended
	}
}
