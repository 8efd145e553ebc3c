package app

import (
	"errors"
	"fmt"

	"kleinbild/app/settings"
)

// lockDataDir takes the data folder dir for this window (see settings.LockDataDir). When
// another instance holds it, or it cannot be written, the window opens read-only: readOnly
// is true and release does nothing. Any other failure to lock is an error.
func lockDataDir(dir string) (release func(), readOnly bool, err error) {
	release, err = settings.LockDataDir(dir)
	if errors.Is(err, settings.ErrLocked) || errors.Is(err, settings.ErrReadOnly) {
		return func() {}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return release, false, nil
}

// readOnlyNotice is the banner of a read-only window on the data folder dir.
func readOnlyNotice(dir string) string {
	if errors.Is(settings.CheckWritable(dir), settings.ErrReadOnly) {
		return fmt.Sprintf("The data folder %s cannot be written (a read-only disk or folder); this window is read-only. "+
			"You can browse the gallery, but nothing is generated, deleted, starred or remembered here.", dir)
	}
	return fmt.Sprintf("Another Kleinbild window is using this data folder (%s); this one is read-only. "+
		"You can browse the gallery, but nothing is generated, deleted, starred or remembered here. "+
		"Close the other window and start Kleinbild again to work in this folder.", dir)
}

// startReadOnly makes a freshly built window read-only: Generate is disabled and the banner
// says why (UI goroutine, before the window shows).
func (u *UI) startReadOnly() {
	u.ctl.Generate.Disable()
	u.ShowNotice(readOnlyNotice(u.DataDir))
}
