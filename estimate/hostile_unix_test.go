//go:build unix

package estimate

import (
	"testing"
	"time"

	"kleinbild/internal/testfix"
)

// TestLoadCalibrationHostileFiles: a calibration file that is a FIFO or /dev/zero gives an
// error at once (issue 23 item 5: it blocked the exit or grew memory).
func TestLoadCalibrationHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "fifo.json")
	zero := testfix.DevZero(t, dir, "zero.json")
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
