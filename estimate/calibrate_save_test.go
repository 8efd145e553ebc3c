package estimate

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCalibrationSaveIsAtomicfile: Save writes through atomicfile.WriteAtomic, which keeps
// the replaced file's permissions (a hand-made temporary file, as before, left every saved
// calibration 0600) and leaves no temporary file behind; the file reads back.
func TestCalibrationSaveIsAtomicfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calibration.json")
	if err := os.WriteFile(path, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	c := Calibration{Backend: "cpu", LinearGFLOPS: 10, AttentionGFLOPS: 5, ConvGFLOPS: 3}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("saved calibration: %v, mode %v, want 0640", err, st.Mode().Perm())
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("%d files in the folder, want only the calibration", len(names))
	}
	got, err := LoadCalibration(path)
	if err != nil || got.LinearGFLOPS != 10 || got.Backend != "cpu" {
		t.Errorf("read back %+v, %v", got, err)
	}
}
