//go:build unix

package imageio

import (
	"strings"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// A FIFO or a link to /dev/zero as an image is refused at once: before the fix opening the
// FIFO blocked forever. Also the PNG metadata reader and the hash (the gallery's scan).
func TestLoadSpecialFilesQuickly(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "ref.png")
	zero := testfix.DevZero(t, dir, "zero.png")
	hangguard.Within(t, 5*time.Second, func() {
		for _, p := range []string{fifo, zero} {
			if _, err := LoadReference(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("LoadReference(%s) = %v", p, err)
			}
			if _, _, err := ReadMetadata(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("ReadMetadata(%s) = %v", p, err)
			}
			if _, err := SHA256File(p); err == nil {
				t.Errorf("SHA256File(%s) succeeded", p)
			}
		}
	})
}
