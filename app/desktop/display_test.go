//go:build linux || freebsd || netbsd || openbsd

package desktop

import (
	"errors"
	"testing"
)

// TestNoDisplayIsAnError: without a display the window's start is an error that says what
// to do; GLFW's failed start went unnoticed and Fyne panicked in initCursors with a 30-line
// stack trace (issue 37, `make run` without a display).
func TestNoDisplayIsAnError(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if err := openDisplay(""); !errors.Is(err, errNoDisplay) {
		t.Errorf("no display: %v, want %v", err, errNoDisplay)
	}
}
