//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// A FIFO (with no writer) and a symlink to /dev/zero are refused at once: before the fix
// os.ReadFile blocked forever on the first and grew until out of memory on the second.
func TestSpecialFilesRefusedQuickly(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "config.json")
	zero := testfix.DevZero(t, dir, "tokenizer.json")
	linkToFifo := filepath.Join(dir, "link")
	os.Symlink(fifo, linkToFifo)
	for _, tc := range []struct{ path, want string }{
		{fifo, "named pipe"}, {zero, "character device"}, {linkToFifo, "named pipe"},
	} {
		hangguard.Within(t, 5*time.Second, func() {
			_, err := ReadRegular(tc.path, MaxConfigBytes)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("ReadRegular(%s) = %v, want %q", tc.path, err, tc.want)
			}
			f, _, err := OpenRegular(tc.path, 0)
			if err == nil {
				f.Close()
				t.Errorf("OpenRegular(%s) succeeded", tc.path)
			}
		})
	}
}
