package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"kleinbild/app/settings"
)

// errReadOnlyWindow refuses what would write to the data folder in a read-only window.
var errReadOnlyWindow = errors.New("this window is read-only because another Kleinbild window is using its data folder: close the other window and start Kleinbild again to generate or change the gallery")

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

// writable is nil in a window that owns its data folder, else errReadOnlyWindow.
func (sh *shell) writable() error {
	if sh.readOnly {
		return errReadOnlyWindow
	}
	return nil
}

// startReadOnly makes a freshly built window read-only: Generate is disabled and the banner
// says why (UI goroutine, before the window shows).
func (u *UI) startReadOnly() {
	u.ctl.generate.Disable()
	u.showNotice(readOnlyNotice(u.dataDir))
}

// inDataDir reports whether path lies in the data folder (or is it).
func (sh *shell) inDataDir(path string) bool {
	rel, err := filepath.Rel(filepath.Clean(sh.dataDir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// addNotice shows msg in the banner, after the message already there when one is shown
// (startup notices: a read-only window, a bad $KLEINBILD_BACKEND), so that neither hides
// the other.
func (sh *shell) addNotice(msg string) {
	b := sh.banner
	if b.box.Visible() && b.text.Text != "" && !strings.Contains(b.text.Text, sentence(msg)) {
		b.show(b.text.Text+"\n\n"+sentence(msg), b.isError)
		return
	}
	sh.showNotice(msg)
}
