package desktop

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"kleinbild/resources"
)

// newFyneApp creates the Fyne application with preferences kept in memory only.
//
// Fyne keeps the preferences of an application with an ID in one file per user, which it
// rewrites in place (truncate, then write) at every change and at every quit, and which
// every instance watches and reads again on a change. Two instances therefore read each
// other's half-written file: "Fyne error: Preferences load error: Cause: EOF" (issue 37
// item 15), and a quit cut short left the file empty. Kleinbild keeps nothing there (the
// window size has a file of its own, see savedWindow), so the application is created
// without an ID: Fyne then neither reads, watches nor writes the file. The ID is set in the
// metadata afterwards, where notifications and the application's storage take it from.
// The metadata is Kleinbild's own, also in a packaged build or beside FyneApp.toml.
func newFyneApp(version string) fyne.App {
	meta := fyne.AppMetadata{Name: "Kleinbild", Version: version, Icon: resources.Icon}
	fyneapp.SetMetadata(meta) // no ID: preferences in memory (the Name keeps FyneApp.toml unread)
	a := fyneapp.NewWithID("")
	meta.ID = AppID
	fyneapp.SetMetadata(meta)
	return a
}
