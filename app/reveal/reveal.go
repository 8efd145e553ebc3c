// Package reveal shows files and folders in the system file manager.
package reveal

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// command is the command that shows file in the system file manager: the containing
// folder with xdg-open on Linux and other Unix systems, the file selected in Finder on
// macOS and in Explorer on Windows.
func command(file string) *exec.Cmd {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", "-R", file)
	case "windows":
		return exec.Command("explorer", "/select,", file)
	}
	return exec.Command("xdg-open", filepath.Dir(file))
}

// File shows file in the system file manager (its folder on Linux, the file selected in
// Finder or Explorer) and waits for the launcher, not the file manager, to finish.
func File(file string) error {
	cmd := command(file)
	if err := missing(cmd, filepath.Dir(file)); err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil && runtime.GOOS != "windows" { // explorer exits 1 even on success
		if len(out) > 0 {
			return fmt.Errorf("could not open the folder with %s: %v: %s", cmd.Path, err, out)
		}
		return fmt.Errorf("could not open the folder with %s: %w", filepath.Base(cmd.Path), err)
	}
	return nil
}

// Folder opens dir itself in the file manager.
func Folder(dir string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", dir)
	case "windows":
		cmd = exec.Command("explorer", dir)
	default:
		cmd = exec.Command("xdg-open", dir)
	}
	if err := missing(cmd, dir); err != nil {
		return err
	}
	if out, err := cmd.CombinedOutput(); err != nil && runtime.GOOS != "windows" {
		return fmt.Errorf("could not open %s with %s: %v %s", dir, filepath.Base(cmd.Path), err, out)
	}
	return nil
}

// missing says in plain words that the program cmd runs is not installed (xdg-open is
// absent on minimal Linux systems), and where to look instead; nil when it is there.
func missing(cmd *exec.Cmd, dir string) error {
	if cmd.Err == nil || !errors.Is(cmd.Err, exec.ErrNotFound) {
		return nil
	}
	name := filepath.Base(cmd.Args[0])
	hint := ""
	if name == "xdg-open" {
		hint = " (on Linux it comes with the xdg-utils package)"
	}
	return fmt.Errorf("the folder cannot be opened because %s is not installed%s. The file is in %s", name, hint, dir)
}
