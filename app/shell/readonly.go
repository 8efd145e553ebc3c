package shell

import (
	"errors"
	"path/filepath"
	"strings"
)

// ErrReadOnlyWindow refuses what would write to the data folder in a read-only window.
var ErrReadOnlyWindow = errors.New("this window is read-only because another Kleinbild window is using its data folder: close the other window and start Kleinbild again to generate or change the gallery")

// Writable is nil in a window that owns its data folder, else ErrReadOnlyWindow.
func (sh *Shell) Writable() error {
	if sh.ReadOnly {
		return ErrReadOnlyWindow
	}
	return nil
}

// InDataDir reports whether path lies in the data folder (or is it).
func (sh *Shell) InDataDir(path string) bool {
	rel, err := filepath.Rel(filepath.Clean(sh.DataDir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// AddNotice shows msg in the banner, after the message already there when one is shown
// (startup notices: a read-only window, a bad $KLEINBILD_BACKEND), so that neither hides
// the other.
func (sh *Shell) AddNotice(msg string) {
	b := sh.Banner
	if b.Box.Visible() && b.Text.Text != "" && !strings.Contains(b.Text.Text, Sentence(msg)) {
		b.Show(b.Text.Text+"\n\n"+Sentence(msg), b.IsError)
		return
	}
	sh.ShowNotice(msg)
}
