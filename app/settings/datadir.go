package settings

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataDir is where Kleinbild keeps its gallery and settings: $XDG_DATA_HOME/kleinbild
// or ~/.local/share/kleinbild on Linux and other Unix systems, ~/Library/Application
// Support/Kleinbild on macOS, %LOCALAPPDATA%\Kleinbild on Windows.
func DefaultDataDir() (string, error) {
	home, herr := os.UserHomeDir()
	switch runtime.GOOS {
	case "darwin", "ios":
		if herr != nil {
			return "", herr
		}
		return filepath.Join(home, "Library", "Application Support", "Kleinbild"), nil
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "Kleinbild"), nil
		}
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "Kleinbild"), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "kleinbild"), nil
	}
	if herr != nil {
		return "", errors.Join(errors.New("no data folder: neither $XDG_DATA_HOME nor a home folder is set"), herr)
	}
	return filepath.Join(home, ".local", "share", "kleinbild"), nil
}
