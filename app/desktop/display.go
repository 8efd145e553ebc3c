package desktop

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// errNoDisplay is the error of a start without a display (ssh, containers, CI without Xvfb).
var errNoDisplay = errors.New("no display found: run it in a desktop session, or use `kleinbild generate`")

// openDisplay starts GLFW before Fyne does and reports a display that is missing or cannot
// be opened as an error. GLFW's binding logs a failed start ("PlatformError: X11: Failed to
// open display") and returns no error, and Fyne then panicked in initCursors with a
// 30-line stack trace (issue 37: `make run` without a display). display is $DISPLAY. It
// must run on the main thread, before the first window.
func openDisplay(display string) error {
	var logged bytes.Buffer
	prev, flags := log.Writer(), log.Flags()
	log.SetOutput(&logged) // the binding's log line becomes part of the error
	log.SetFlags(0)
	err := glfw.Init()
	started := err == nil && glfwStarted()
	log.SetOutput(prev)
	log.SetFlags(flags)
	if started {
		return nil
	}
	why := strings.TrimSpace(logged.String())
	if err != nil {
		why = err.Error()
	}
	if display == "" {
		return errNoDisplay
	}
	return fmt.Errorf("the display %s cannot be opened (%s): run it in a desktop session, or use `kleinbild generate`", display, why)
}

// glfwStarted reports whether GLFW is initialised: asking for a monitor panics (GLFW's
// NotInitialized) when it is not.
func glfwStarted() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	glfw.GetPrimaryMonitor()
	return true
}
