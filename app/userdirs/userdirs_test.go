package userdirs

import (
	"os"
	"path/filepath"
	"testing"
)

// The start folder: the one used last, else the pictures folder (XDG_PICTURES_DIR from
// user-dirs.dirs on Linux, ~/Pictures elsewhere or when unset), else home.
func TestStartFolder(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config")
	os.MkdirAll(cfg, 0o755)
	if got := Start("", home, cfg, "linux"); got != home {
		t.Errorf("no pictures folder: %s, want home", got)
	}
	std := filepath.Join(home, "Pictures")
	os.MkdirAll(std, 0o755)
	if got := Start("", home, cfg, "linux"); got != std {
		t.Errorf("no user-dirs.dirs: %s, want %s", got, std)
	}
	bilder := filepath.Join(home, "Bilder")
	os.MkdirAll(bilder, 0o755)
	dirs := filepath.Join(cfg, "user-dirs.dirs")
	os.WriteFile(dirs, []byte("XDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_PICTURES_DIR=\"$HOME/Bilder\"\n"), 0o644)
	if got := Start("", home, cfg, "linux"); got != bilder {
		t.Errorf("user-dirs.dirs names Bilder: %s", got)
	}
	if got := Start("", home, cfg, "darwin"); got != std {
		t.Errorf("macOS: %s, want %s", got, std)
	}
	abs := t.TempDir()
	os.WriteFile(dirs, []byte("XDG_PICTURES_DIR=\""+abs+"\"\n"), 0o644)
	if got := Start("", home, cfg, "freebsd"); got != abs {
		t.Errorf("absolute XDG_PICTURES_DIR: %s, want %s", got, abs)
	}
	os.WriteFile(dirs, []byte("XDG_PICTURES_DIR=\"$HOME/\"\n"), 0o644)
	if got := Start("", home, cfg, "linux"); got != std {
		t.Errorf("disabled XDG_PICTURES_DIR: %s, want %s", got, std)
	}
	os.WriteFile(dirs, []byte("XDG_PICTURES_DIR=\"$HOME/Gone\"\n"), 0o644)
	if got := Start("", home, cfg, "linux"); got != home {
		t.Errorf("missing XDG pictures folder: %s, want home", got)
	}
	last := t.TempDir()
	if got := Start(last, home, cfg, "linux"); got != last {
		t.Errorf("last used: %s, want %s", got, last)
	}
	if got := Start(filepath.Join(last, "gone"), home, cfg, "linux"); got != home {
		t.Errorf("last used is gone: %s, want home", got)
	}
}
