//go:build linux || freebsd || netbsd || openbsd

package desktop

import (
	"errors"
	"strings"
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

// TestUnopenableDisplayIsAnError: a display that cannot be opened (no server there, or one
// that went away while two starts raced for it) is an error naming it and GLFW's reason;
// GLFW's failed start went unnoticed and Fyne panicked in initCursors (issue 37 item 2:
// the panic at window creation while another instance started).
func TestUnopenableDisplayIsAnError(t *testing.T) {
	const display = ":9876"
	t.Setenv("DISPLAY", display)
	err := openDisplay(display)
	if err == nil || !strings.Contains(err.Error(), "the display "+display+" cannot be opened") || !strings.Contains(err.Error(), "kleinbild generate") {
		t.Errorf("display %s: %v", display, err)
	}
}
