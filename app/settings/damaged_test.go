package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDamagedSettingsKeptAside: a settings file with one typo is kept aside as
// settings.json.unreadable (numbered beside an earlier one) with an error that names it,
// so the next save cannot replace it by the defaults (issue 37 item 3); a file that cannot
// be opened at all is left where it is.
func TestDamagedSettingsKeptAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	typo := []byte(`{"model_dir": "/models/klein", "prompt": "a fox", "lora_dir": "/loras",}` + "\n")
	for _, aside := range []string{path + ".unreadable", path + ".unreadable-2"} {
		if err := os.WriteFile(path, typo, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadKeepingDamaged(path)
		if err == nil || !strings.Contains(err.Error(), aside) || !reflect.DeepEqual(s, Settings{}) {
			t.Fatalf("damaged file: %+v, %v: want zero settings and an error naming %s", s, err, aside)
		}
		if got, _ := os.ReadFile(aside); string(got) != string(typo) {
			t.Errorf("%s holds %q", aside, got)
		}
		if err := Save(path, Settings{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(aside); string(got) != string(typo) {
			t.Errorf("after a save, %s holds %q", aside, got)
		}
	}
	if s, err := LoadKeepingDamaged(path); err != nil || !reflect.DeepEqual(s, Settings{}) {
		t.Errorf("sound file: %+v %v", s, err)
	}
	// A folder where the file should be is no damaged file: nothing is moved.
	odd := filepath.Join(dir, "folder.json")
	os.Mkdir(odd, 0o755)
	if _, err := LoadKeepingDamaged(odd); err == nil {
		t.Errorf("a folder as settings file gave no error")
	}
	if st, err := os.Stat(odd); err != nil || !st.IsDir() {
		t.Errorf("the folder was moved: %v", err)
	}
}
