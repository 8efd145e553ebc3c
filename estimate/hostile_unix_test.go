//go:build unix

package estimate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLoadCalibrationHostileFiles: a calibration file that is a FIFO or /dev/zero gives an
// error at once (issue 23 item 5: it blocked the exit or grew memory).
func TestLoadCalibrationHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.Symlink("/dev/zero", zero)
	for _, p := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := LoadCalibration(p); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: loaded", p)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: LoadCalibration blocked", p)
		}
	}
}
