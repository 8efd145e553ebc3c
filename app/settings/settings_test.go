package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"kleinbild/engine"
)

func TestSettingsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if s, err := Load(path); err != nil || !reflect.DeepEqual(s, Settings{}) {
		t.Errorf("missing file: %+v %v", s, err)
	}
	want := Settings{Settings: engine.Settings{Prompt: "p", Width: 512, Height: 768, Steps: 4, Guidance: 3.5, Schedule: "power", Seed: 7}, ModelDir: "/m", SeedLocked: true, ModelTransformer: "/t.gguf", ModelTextEncoder: "/q.gguf", ModelVAE: "/ae.safetensors", ModelVariant: "base", ModelVAEGroups: 8}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	if got, err := Load(path); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: %+v %v", got, err)
	}
	os.WriteFile(path, []byte("{not json"), 0o644)
	if s, err := Load(path); err == nil || !reflect.DeepEqual(s, Settings{}) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged file: %+v %v", s, err)
	}
}

func TestDefaultDataDir(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("XDG layout only")
	}
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	d, err := DefaultDataDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "kleinbild"); d != want {
		t.Errorf("with XDG_DATA_HOME: %s, want %s", d, want)
	}
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", home)
	if d, _ := DefaultDataDir(); d != filepath.Join(home, ".local", "share", "kleinbild") {
		t.Errorf("without XDG_DATA_HOME: %s", d)
	}
}

func TestRememberedTokenIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits: the user's own folder (%LOCALAPPDATA%) keeps it private")
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := Save(path, Settings{Settings: engine.Settings{Prompt: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := Save(path, Settings{HFToken: "hf_secret"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("settings with a token: mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

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
		s, err := Load(p)
		if err != nil {
			if !reflect.DeepEqual(s, Settings{}) {
				t.Fatalf("damaged file gave settings %+v", s)
			}
			return
		}
		if err := Save(p, s); err != nil {
			t.Fatalf("loaded settings do not save: %v", err)
		}
		back, err := Load(p)
		if err != nil {
			t.Fatalf("saved settings do not load: %v", err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip changed the settings:\n%+v\n%+v", s, back)
		}
	})
}
