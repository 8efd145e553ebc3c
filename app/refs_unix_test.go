//go:build unix

package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// Dropping a FIFO named like an image (alone, so it is first probed for Kleinbild
// metadata, or with other files) neither blocks the UI goroutine nor the drop: it is
// refused with a message and the other files are added. Before the fix HandleDrop opened
// the FIFO on the UI goroutine and blocked until a writer appeared.
func TestDropFIFODoesNotBlock(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "pipe.png")
	good := writeTestPNG(t, dir, "good.png", 64, 64, nil)
	zero := testfix.DevZero(t, dir, "zero.png")

	var done <-chan struct{}
	hangguard.WithinLabel(t, 5*time.Second, "handleDrop("+fifo+")", func() {
		done = u.handleDrop([]fyne.URI{storage.NewFileURI(fifo)})
	})
	h.waitFor("the FIFO drop", 10*time.Second, func() bool { return closedChan(done) })
	if len(u.refs.RefPaths()) != 0 || !strings.Contains(u.ErrorText(), "pipe.png") || !strings.Contains(u.ErrorText(), "named pipe") {
		t.Errorf("after dropping a FIFO: refs %v, banner %q", u.refs.RefPaths(), u.ErrorText())
	}
	h.drop([]fyne.URI{storage.NewFileURI(fifo), storage.NewFileURI(zero), storage.NewFileURI(good)})
	if len(u.refs.RefPaths()) != 1 || u.refs.RefPaths()[0] != good {
		t.Errorf("refs %v, want only good.png", u.refs.RefPaths())
	}
	if !strings.Contains(u.ErrorText(), "character device") {
		t.Errorf("banner %q", u.ErrorText())
	}
}
