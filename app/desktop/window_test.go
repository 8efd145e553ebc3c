package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// The window size is kept in a file of Kleinbild's own: it survives a restart, a missing
// file is no size, a damaged one an error naming it, and without the file the size kept in
// the Fyne preferences of earlier versions is taken (issue 37 item 15).
func TestWindowSizeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kleinbild", "window.json")
	legacy := filepath.Join(dir, "fyne", AppID, "preferences.json")
	if s, err := loadWindow(path, legacy); err != nil || s != (savedWindow{}) {
		t.Fatalf("no file: %+v, %v", s, err)
	}
	want := savedWindow{1008, 552, 1024, 600}
	if err := saveWindow(path, want); err != nil {
		t.Fatal(err)
	}
	if s, err := loadWindow(path, legacy); err != nil || s != want {
		t.Errorf("after a save: %+v, %v; want %+v", s, err, want)
	}
	if err := os.WriteFile(path, []byte(`{"width":12`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadWindow(path, legacy); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged file: %v, want an error naming %s", err, path)
	}

	os.Remove(path)
	if err := os.MkdirAll(filepath.Dir(legacy), 0o700); err != nil {
		t.Fatal(err)
	}
	old := `{"window.width":1100,"window.height":650,"window.screen_width":1366,"window.screen_height":740,"other":"x"}`
	if err := os.WriteFile(legacy, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := loadWindow(path, legacy); err != nil || s != (savedWindow{1100, 650, 1366, 740}) {
		t.Errorf("from the old preferences: %+v, %v", s, err)
	}
	for _, body := range []string{"", `{"window.width":`, `{"window.width":"wide"}`} {
		if err := os.WriteFile(legacy, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := loadWindow(path, legacy); err != nil || s != (savedWindow{}) {
			t.Errorf("old preferences %q: %+v, %v; want no size", body, s, err)
		}
	}
	if _, ok := windowToSave(fyne.NewSize(150, 700), fyne.Size{}); ok {
		t.Error("a 150 px wide window is remembered")
	}
}
