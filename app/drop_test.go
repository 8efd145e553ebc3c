package app

import (
	"time"

	"fyne.io/fyne/v2"
)

// drop drops uris onto the window and runs the event loop until the drop is applied.
func (h *harness) drop(uris []fyne.URI) {
	h.t.Helper()
	done := h.ui.handleDrop(uris)
	h.waitFor("the drop to be applied", 10*time.Second, func() bool { return closedChan(done) })
}

func closedChan(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
