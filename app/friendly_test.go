package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22 item 12: a file that is no image gets the CLI's words, not Go's
// "image: unknown format".
func TestUnreadableReferenceSaysWhatTheCLISays(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.png")
	if err := os.WriteFile(p, []byte("this is not an image at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := imageSize(p)
	if err == nil {
		t.Fatal("no error for a file that is no image")
	}
	if msg := err.Error(); strings.Contains(msg, "unknown format") || !strings.Contains(msg, "unsupported image format") {
		t.Errorf("message %q", msg)
	}
}
