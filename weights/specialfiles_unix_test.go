//go:build unix

package weights_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
	"kleinbild/weights"
)

// Checkpoints that are not regular files are refused at once: a FIFO shard (which would
// block the open), a shard or sharded index linked to /dev/zero (the index used to be read
// until memory ran out) and a folder named like a shard.
func TestOpenSpecialFilesQuickly(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "model.safetensors")
	zeroIndex := testfix.DevZero(t, dir, "zero.safetensors.index.json")
	zeroShard := testfix.DevZero(t, dir, "zero.safetensors")
	folder := filepath.Join(dir, "folder.safetensors")
	os.Mkdir(folder, 0o755)
	for _, tc := range []struct{ path, want string }{
		{fifo, "named pipe"}, {zeroIndex, "character device"}, {zeroShard, "character device"},
	} {
		hangguard.Within(t, 5*time.Second, func() {
			_, err := weights.Open(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("Open(%s) = %v, want %q", tc.path, err, tc.want)
			}
		})
	}
	hangguard.Within(t, 5*time.Second, func() {
		if _, err := weights.OpenFile(folder); err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("OpenFile(folder) = %v", err)
		}
	})
	// An index over the size limit is refused before it is read.
	big := filepath.Join(dir, "big.safetensors.index.json")
	f, _ := os.Create(big)
	f.Truncate(65<<20 + 1)
	f.Close()
	if _, err := weights.Open(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("Open(oversized index) = %v", err)
	}
}
