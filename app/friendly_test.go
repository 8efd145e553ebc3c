package app

import (
	"kleinbild/app/imagefile"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// Issue 22 item 12: a file that is no image gets the CLI's words, not Go's
// "image: unknown format".
func TestUnreadableReferenceSaysWhatTheCLISays(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.png")
	if err := os.WriteFile(p, []byte("this is not an image at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := imagefile.Size(p)
	if err == nil {
		t.Fatal("no error for a file that is no image")
	}
	if msg := err.Error(); strings.Contains(msg, "unknown format") || !strings.Contains(msg, "unsupported image format") {
		t.Errorf("message %q", msg)
	}
}

// Issue 22 item 12: during a run the zoom button says "Preview", not the fit percentage of
// the low-resolution preview ("Fit (1320 %)"); the finished image shows its own.
func TestZoomLabelDuringPreview(t *testing.T) {
	h, _ := startBlockedRun(t, "a lighthouse")
	u := h.ui
	h.waitFor("the preview", 5*time.Second, func() bool { return u.view.Image.Image != nil })
	h.settle()
	if got := u.view.Zoom.Level.Text; got != "Preview" {
		t.Errorf("zoom label during the preview %q, want Preview", got)
	}
	test.Tap(u.ctl.Generate) // cancel
	h.waitFor("the run to stop", 5*time.Second, func() bool { return u.run.Current() == nil })
	h.settle()
	if got := u.view.Zoom.Level.Text; got == "Preview" {
		t.Errorf("zoom label after the run %q", got)
	}
}
