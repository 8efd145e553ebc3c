package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSettings reads a fuzzed settings.json: no panic, and settings that load save and
// load back unchanged.
func FuzzSettings(f *testing.F) {
	f.Add([]byte(`{"model_dir":"/m","prompt":"a castle","width":512,"height":768,"steps":4,"guidance":4.5,"schedule":"linear","seed":42,"seed_locked":true,"device":"cpu","hf_token":"hf_x","download_dir":"/d","download_variant":"base"}`))
	f.Add([]byte(`{"width":-1,"height":1e9,"steps":-5,"guidance":1e308,"seed":18446744073709551615}`))
	f.Add([]byte(`{"prompt":"\u0000\ud800x","schedule":"\u001b[31m"}`))
	f.Add([]byte(`{"width":1.5}`))
	f.Add([]byte(`{"guidance":1e999}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	f.Add([]byte(strings.Repeat(`{"a":`, 10000)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := loadSettings(p)
		if err != nil {
			if s != (settings{}) {
				t.Fatalf("damaged file gave settings %+v", s)
			}
			return
		}
		if err := saveSettings(p, s); err != nil {
			t.Fatalf("loaded settings do not save: %v", err)
		}
		back, err := loadSettings(p)
		if err != nil {
			t.Fatalf("saved settings do not load: %v", err)
		}
		if back != s {
			t.Fatalf("round trip changed the settings:\n%+v\n%+v", s, back)
		}
	})
}
