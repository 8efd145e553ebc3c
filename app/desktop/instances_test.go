package desktop

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"fyne.io/fyne/v2"
)

// instanceEnv makes the test binary one of TestTwoInstances's instances.
const instanceEnv = "KLEINBILD_TEST_INSTANCE"

// instanceRounds is how often each instance starts, remembers its size and quits.
const instanceRounds = 150

// Issue 37 item 15: two instances against one home, each starting, remembering its window
// size and quitting over and over at the same time, never read an empty or half-written
// file ("Fyne error: Preferences load error: Cause: EOF"), never lose the size, and leave
// no Fyne preferences file (Fyne rewrote that one in place at every quit while the other
// instance read it).
func TestTwoInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	results := make(chan result, 2)
	for id := 1; id <= 2; id++ {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestInstanceChild$", "-test.v")
		cmd.Env = append(slices.Clip(env), instanceEnv+"="+strconv.Itoa(id))
		go func() {
			out, err := cmd.CombinedOutput()
			results <- result{out, err}
		}()
	}
	for range 2 {
		r := <-results
		if r.err != nil || bytes.Contains(r.out, []byte("Preferences")) || !bytes.Contains(r.out, []byte("PASS")) {
			t.Errorf("an instance failed (%v):\n%s", r.err, r.out)
		}
	}
	config := filepath.Join(home, "config")
	s, err := loadWindow(filepath.Join(config, "kleinbild", "window.json"), "")
	if err != nil || (s != instanceSize(1) && s != instanceSize(2)) {
		t.Errorf("remembered size %+v (%v), want one of the instances' sizes", s, err)
	}
	if _, err := os.Stat(filepath.Join(config, "fyne", AppID, "preferences.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Fyne's preferences file was written (%v)", err)
	}
}

// instanceSize is the window size that instance id remembers.
func instanceSize(id int) savedWindow {
	return savedWindow{float32(900 + id), float32(600 + id), 1366, 740}
}

// TestInstanceChild is one instance of TestTwoInstances (it does nothing otherwise): it
// starts the application as Run does, reads the remembered size, remembers its own and
// quits, instanceRounds times.
func TestInstanceChild(t *testing.T) {
	id, _ := strconv.Atoi(os.Getenv(instanceEnv))
	if id == 0 {
		t.Skip("run by TestTwoInstances")
	}
	for round := range instanceRounds {
		a := newFyneApp("test")
		if got := a.UniqueID(); got != AppID {
			t.Fatalf("the application's ID is %q, want %q (notifications and storage use it)", got, AppID)
		}
		s, err := loadWindow(windowFile(), legacyPrefsFile())
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if s != (savedWindow{}) && s != instanceSize(1) && s != instanceSize(2) {
			t.Fatalf("round %d: read %+v, a size no instance saved", round, s)
		}
		want := instanceSize(id)
		saved, ok := windowToSave(fyne.NewSize(want.Width, want.Height), fyne.NewSize(want.ScreenWidth, want.ScreenHeight))
		if !ok || saved != want {
			t.Fatalf("windowToSave = %+v, %v", saved, ok)
		}
		if err := saveWindow(windowFile(), saved); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		quit(t, a)
	}
}

// quit runs what Fyne runs when the application stops (its stopped hook, which saves
// Fyne's preferences), without a window.
func quit(t *testing.T, a fyne.App) {
	l, ok := a.Lifecycle().(interface{ OnStopped() func() })
	if !ok {
		t.Fatalf("the lifecycle %T has no stopped hook", a.Lifecycle())
	}
	if stop := l.OnStopped(); stop != nil {
		stop()
	}
}
