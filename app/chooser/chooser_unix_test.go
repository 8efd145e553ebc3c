//go:build unix

package chooser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// FIFOs and other special files are not offered (opening one would block).
func TestChooserSkipsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	testfix.FIFO(t, dir, "pipe.png")
	writeTestPNG(t, dir, "real.png", 64, 64)
	os.Symlink(filepath.Join(dir, "real.png"), filepath.Join(dir, "link.png"))
	os.Symlink(filepath.Join(dir, "pipe.png"), filepath.Join(dir, "linkpipe.png"))
	os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling.png"))
	var items []dirItem
	var err error
	hangguard.WithinLabel(t, 5*time.Second, "listDir("+dir+")", func() { items, err = listDir(dir, true) })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range items {
		names = append(names, it.name)
	}
	if got := strings.Join(names, ","); got != "link.png,real.png" {
		t.Errorf("listed %s", got)
	}
}
