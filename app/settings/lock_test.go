package settings

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestLockDataDir: while one instance holds the data folder a second one is refused with a
// message naming it; after release it can take it (issue 23 item 9: two instances lost each
// other's gallery entries).
func TestLockDataDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	release, err := LockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDataDir(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second lock: %v", err)
	}
	release()
	release2, err := LockDataDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release2()
}
