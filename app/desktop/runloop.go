package desktop

import (
	"fmt"
	"io"
	"sync/atomic"
)

// showAndRun shows the window and runs Fyne's event loop until it ends. A panic in Fyne
// once the window has closed (closed set by its OnClosed, which has stopped the interface
// and begun the shutdown) is reported in one line to log, and the shutdown goes on as after
// a normal quit; other panics go on up.
//
// Fyne 2.7 handles a mouse move that arrives after the window began to close and needs
// another cursor: its viewport is nil by then, and processMouseMoved dereferenced it. Two
// instances quitting with Ctrl+Q at once ended one of them with that panic, exit status 2
// and a 40-line trace, after its work was saved (issue 37 item 2, the racing starts).
func showAndRun(w interface{ ShowAndRun() }, closed *atomic.Bool, log io.Writer) {
	defer func() {
		if r := recover(); r != nil {
			if !closed.Load() {
				panic(r)
			}
			fmt.Fprintf(log, "kleinbild: the window failed while closing (%v); quitting\n", r)
		}
	}()
	w.ShowAndRun()
}
