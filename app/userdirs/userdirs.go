// Package userdirs finds the user's folders: home, the XDG configuration folder, the
// pictures folder (XDG_PICTURES_DIR on Linux and the BSDs) and where a file chooser opens.
package userdirs

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"kleinbild/internal/safefile"
)

// Dirs returns the home folder and the XDG configuration folder ("" when unknown).
func Dirs() (home, configHome string) {
	home, _ = os.UserHomeDir()
	configHome = os.Getenv("XDG_CONFIG_HOME")
	if configHome == "" && home != "" {
		configHome = filepath.Join(home, ".config")
	}
	return home, configHome
}

// Pictures is the user's pictures folder, "" when it does not exist: on Linux and the
// BSDs XDG_PICTURES_DIR from configHome/user-dirs.dirs, else (and when unset) ~/Pictures.
func Pictures(home, configHome, goos string) string {
	if home == "" {
		return ""
	}
	p := filepath.Join(home, "Pictures")
	if goos != "darwin" && goos != "windows" && configHome != "" {
		if x := xdgUserDir(filepath.Join(configHome, "user-dirs.dirs"), "XDG_PICTURES_DIR", home); x != "" {
			p = x
		}
	}
	if !IsDir(p) {
		return ""
	}
	return p
}

// xdgUserDir reads one entry of a user-dirs.dirs file (lines like
// XDG_PICTURES_DIR="$HOME/Pictures"); "" when it is missing or names the home folder
// itself (which the specification uses to disable it).
func xdgUserDir(file, key, home string) string {
	f, _, err := safefile.OpenRegular(file, safefile.MaxConfigBytes)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch {
		case v == "$HOME" || v == "$HOME/":
			return ""
		case strings.HasPrefix(v, "$HOME/"):
			return filepath.Join(home, v[len("$HOME/"):])
		case filepath.IsAbs(v):
			return filepath.Clean(v)
		}
		return ""
	}
	return ""
}

// Start is where a chooser of images opens: the folder used last, else the user's
// pictures folder, else home, else the current folder.
func Start(last, home, configHome, goos string) string {
	if last != "" && IsDir(last) {
		return last
	}
	if p := Pictures(home, configHome, goos); p != "" {
		return p
	}
	if home != "" && IsDir(home) {
		return home
	}
	wd, _ := os.Getwd()
	return wd
}

// IsDir reports whether p is a folder (following links).
func IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
