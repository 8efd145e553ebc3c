package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22 item 12: an empty or damaged Fyne preferences file (a save cut short) is
// removed before Fyne reads it, which logged "Preferences load error: EOF"; a good one
// stays.
func TestRepairPrefs(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		body string
		keep bool
	}{
		"empty": {"", false}, "cut": {`{"w":12`, false}, "good": {`{"w":1280,"h":700}`, true}, "null": {"null", true},
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := repairPrefs(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		_, err := os.Stat(p)
		if kept := err == nil; kept != c.keep {
			t.Errorf("%s: kept %v, want %v", name, kept, c.keep)
		}
	}
	if err := repairPrefs(filepath.Join(dir, "missing.json")); err != nil {
		t.Errorf("missing file: %v", err)
	}
	if p := prefsFile(AppID); p != "" && !strings.HasSuffix(p, filepath.Join("fyne", AppID, "preferences.json")) {
		t.Errorf("prefsFile = %s", p)
	}
}
