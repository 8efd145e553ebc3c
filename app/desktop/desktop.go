// Package desktop runs Kleinbild's user interface in a real window. It is the only package
// that imports fyne.io/fyne/v2/app (which needs cgo and a display); the interface itself
// lives in package app.
package desktop

import (
	"fmt"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"kleinbild/app"
	"kleinbild/app/settings"
	"kleinbild/app/widgets"
	"kleinbild/resources"
)

// AppID is the application identifier (preferences, desktop integration).
const AppID = "io.github.kleinbild"

// Run opens the Kleinbild window and blocks until it is closed. With opts.AutoGenerate or
// opts.ScreenshotPath it runs UI.Automate once the window is up, and quits afterwards when
// opts.QuitAfter or opts.ScreenshotPath is set; the automatic run's error is returned.
//
// The data folder is locked first: a second instance on the same folder is refused with
// a message instead of overwriting the first one's gallery index.
func Run(opts app.Options) error {
	dataDir := opts.DataDir
	if dataDir == "" {
		d, err := settings.DefaultDataDir()
		if err != nil {
			return err
		}
		dataDir = d
	}
	release, err := settings.LockDataDir(dataDir)
	if err != nil {
		return err
	}
	defer release()
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(resources.Icon)
	a.Settings().SetTheme(widgets.Theme())
	w := a.NewWindow("Kleinbild")
	w.SetIcon(resources.Icon)
	u, err := app.NewUI(a, w, opts)
	if err != nil {
		return fmt.Errorf("start the interface: %w", err)
	}
	// Fits a 1366×768 laptop screen with its title bar and panel; the window can be made
	// smaller still (see TestWindowFitsLaptopScreen) or larger.
	w.Resize(fyne.NewSize(1280, 700))
	w.CenterOnScreen()
	w.SetMaster()
	w.SetOnClosed(u.Stop)
	a.Lifecycle().SetOnStopped(u.Stop)

	autoErr := make(chan error, 1)
	if opts.AutoGenerate || opts.ScreenshotPath != "" {
		a.Lifecycle().SetOnStarted(func() {
			go func() {
				err := u.Automate()
				autoErr <- err
				if opts.QuitAfter || opts.ScreenshotPath != "" {
					fyne.Do(a.Quit)
				}
			}()
		})
	} else {
		autoErr <- nil
	}
	w.ShowAndRun()
	u.Close()
	select {
	case err := <-autoErr:
		return err
	default:
		return nil // the window was closed before the automatic run ended
	}
}
