package desktop

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"kleinbild/internal/safefile"
)

// prefsFile is where Fyne keeps the preferences of the app id (its rootConfigDir).
func prefsFile(id string) string {
	var root string
	if runtime.GOOS == "darwin" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, "Library", "Preferences")
	} else {
		root, _ = os.UserConfigDir()
	}
	if root == "" {
		return ""
	}
	return filepath.Join(root, "fyne", id, "preferences.json")
}

// maxPrefsBytes bounds the preferences file read (it holds a window size).
const maxPrefsBytes = 1 << 20

// repairPrefs removes the preferences file at path when it holds no JSON object. Fyne
// writes the file in place (truncate, then write), so a save cut short by the process
// ending leaves it empty, and Fyne then logged "Preferences load error: EOF" at every
// start and quit (issue 22). Fyne starts afresh without the file; only the remembered
// window size is lost, which was lost already.
func repairPrefs(path string) error {
	if path == "" {
		return nil
	}
	raw, err := safefile.ReadRegular(path, maxPrefsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var v map[string]any
	if err == nil && json.Unmarshal(raw, &v) == nil {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
