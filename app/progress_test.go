package app

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
)

func TestProgressEstimate(t *testing.T) {
	var tr progressTracker
	tr.update(engine.Progress{Phase: engine.PhaseLoading}, 0)
	if _, s := tr.status(500 * time.Millisecond); s != "Loading the model… · 0.5 s" {
		t.Errorf("loading: %q", s)
	}
	tr.update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4}, 2*time.Second)
	f, s := tr.status(2 * time.Second)
	if f != 0.18 || s != "Step 1 of 4 · 2.0 s" {
		t.Errorf("denoise start: %v %q", f, s)
	}
	// One of four steps took 3 s: 9 s left, counting down between reports.
	tr.update(engine.Progress{Phase: engine.PhaseDenoise, Step: 1, Steps: 4, Block: 10, Blocks: 10}, 5*time.Second)
	if _, s := tr.status(5 * time.Second); !strings.HasSuffix(s, "about 9.0 s left") {
		t.Errorf("after one step: %q", s)
	}
	if _, s := tr.status(8 * time.Second); !strings.HasSuffix(s, "about 6.0 s left") {
		t.Errorf("3 s later: %q", s)
	}
	if _, s := tr.status(20 * time.Second); !strings.HasSuffix(s, "almost done") {
		t.Errorf("overdue: %q", s)
	}
	tr.update(engine.Progress{Phase: engine.PhaseDecoding, Block: 1, Blocks: 2}, 14*time.Second)
	if f, s := tr.status(14 * time.Second); f != 0.96 || s != "Decoding the image… · 14 s" {
		t.Errorf("decoding: %v %q", f, s)
	}
	for d, want := range map[time.Duration]string{1500 * time.Millisecond: "1.5 s", 42 * time.Second: "42 s", 125 * time.Second: "2 min 05 s", 2*time.Hour + 3*time.Minute: "2 h 03 min"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestParseSide(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int
		want string
	}{
		{"512", 512, ""}, {" 64 ", 64, ""}, {"1792", 1792, ""},
		{"1800", 1800, "between 64 and 1792"}, {"48", 48, "between 64 and 1792"},
		{"100", 100, "multiple of 16: try 96 or 112"}, {"1.5", 0, "not a whole number"}, {"", 0, "empty"},
	} {
		v, msg := parseSide("Width", c.in)
		if v != c.v || (c.want == "") != (msg == "") || !strings.Contains(msg, c.want) {
			t.Errorf("parseSide(%q) = %d, %q; want %d, %q", c.in, v, msg, c.v, c.want)
		}
	}
}

func TestSettingsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if s, err := loadSettings(path); err != nil || s != (settings{}) {
		t.Errorf("missing file: %+v %v", s, err)
	}
	want := settings{ModelDir: "/m", Prompt: "p", Width: 512, Height: 768, Steps: 4, Guidance: 3.5, Schedule: "power", Seed: 7, SeedLocked: true}
	if err := saveSettings(path, want); err != nil {
		t.Fatal(err)
	}
	if got, err := loadSettings(path); err != nil || got != want {
		t.Errorf("round trip: %+v %v", got, err)
	}
	os.WriteFile(path, []byte("{not json"), 0o644)
	if s, err := loadSettings(path); err == nil || s != (settings{}) || !strings.Contains(err.Error(), "damaged") {
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
