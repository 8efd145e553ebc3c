package desktop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"fyne.io/fyne/v2"

	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// savedWindow is the window size remembered at the last close, and the usable screen size
// it was remembered on (zero when unknown). Kleinbild keeps it in a file of its own,
// written atomically, rather than in Fyne's preferences (see newFyneApp).
type savedWindow struct {
	Width        float32 `json:"width"`
	Height       float32 `json:"height"`
	ScreenWidth  float32 `json:"screen_width,omitempty"`
	ScreenHeight float32 `json:"screen_height,omitempty"`
}

// windowFile is where the window size is kept: kleinbild/window.json in the user's
// configuration folder ("" when there is none).
func windowFile() string {
	d, err := os.UserConfigDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "kleinbild", "window.json")
}

// loadWindow reads the remembered window size at path. Without that file it takes the
// size from the Fyne preferences file of earlier versions (legacyPath), so an update keeps
// it. A missing file is no size and no error.
func loadWindow(path, legacyPath string) (savedWindow, error) {
	if path == "" {
		return savedWindow{}, nil
	}
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return legacyWindow(legacyPath), nil
	}
	if err != nil {
		return savedWindow{}, fmt.Errorf("read the window size: %w", err)
	}
	var s savedWindow
	if err := json.Unmarshal(raw, &s); err != nil {
		return savedWindow{}, fmt.Errorf("read the window size: %s: %w", path, err)
	}
	return s, nil
}

// saveWindow writes the window size to path atomically: another instance reading it at
// the same time gets the old size or the new one, never an empty file.
func saveWindow(path string, s savedWindow) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("remember the window size: %w", err)
	}
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		return json.NewEncoder(w).Encode(s)
	})
}

// legacyPrefsFile is the Fyne preferences file that earlier versions kept the window size
// in ("" when there is no configuration folder).
func legacyPrefsFile() string {
	var root string
	if runtime.GOOS == "darwin" {
		home, _ := os.UserHomeDir()
		if home != "" {
			root = filepath.Join(home, "Library", "Preferences")
		}
	} else {
		root, _ = os.UserConfigDir()
	}
	if root == "" {
		return ""
	}
	return filepath.Join(root, "fyne", AppID, "preferences.json")
}

// legacyWindow is the window size in the Fyne preferences file at path, zero when it has
// none or cannot be read. The file is only read, never written or removed.
func legacyWindow(path string) savedWindow {
	if path == "" {
		return savedWindow{}
	}
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return savedWindow{}
	}
	var p map[string]any
	if json.Unmarshal(raw, &p) != nil {
		return savedWindow{}
	}
	num := func(key string) float32 {
		v, _ := p[key].(float64)
		return float32(v)
	}
	return savedWindow{num("window.width"), num("window.height"), num("window.screen_width"), num("window.screen_height")}
}

// windowToSave is what to remember of the window size s closed on the usable screen work
// (zero when unknown); ok is false for a size too small to be one the user chose.
func windowToSave(s, work fyne.Size) (saved savedWindow, ok bool) {
	if s.Width < 200 || s.Height < 200 {
		return savedWindow{}, false
	}
	return savedWindow{s.Width, s.Height, work.Width, work.Height}, true
}
