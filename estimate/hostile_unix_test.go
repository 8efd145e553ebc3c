//go:build unix

package estimate

import (
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// TestLoadCalibrationHostileFiles: a calibration file that is a FIFO or /dev/zero gives an
// error at once (issue 23 item 5: it blocked the exit or grew memory).
func TestLoadCalibrationHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "fifo.json")
	zero := testfix.DevZero(t, dir, "zero.json")
	for _, p := range []string{fifo, zero} {
		var err error
		hangguard.WithinLabel(t, 10*time.Second, "LoadCalibration("+p+")", func() { _, err = LoadCalibration(p) })
		if err == nil {
			t.Errorf("%s: loaded", p)
		}
	}
}
