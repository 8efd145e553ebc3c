//go:build unix

package settings

import (
	"os"
	"testing"
	"time"

	"kleinbild/internal/hangguard"
	"kleinbild/internal/testfix"
)

// TestLoadHostileFiles: settings.json as a FIFO or a link to /dev/zero is refused at once
// with an error, not read forever (issue 23 item 5: the FIFO hung the app, /dev/zero ate
// memory until it died).
func TestLoadHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := testfix.FIFO(t, dir, "fifo.json")
	zero := testfix.DevZero(t, dir, "zero.json")
	for _, p := range []string{fifo, zero} {
		var err error
		hangguard.WithinLabel(t, 10*time.Second, "Load("+p+")", func() { _, err = Load(p) })
		if err == nil {
			t.Errorf("%s: loaded without an error", p)
		}
	}
}

// TestSaveWithTokenIsPrivateAndAtomic: a settings file holding a token is written 0600
// without opening what sits at the path (a FIFO there used to block the save).
func TestSaveWithTokenIsPrivateAndAtomic(t *testing.T) {
	p := testfix.FIFO(t, t.TempDir(), "settings.json")
	var err error
	hangguard.WithinOptions(t, 10*time.Second, hangguard.Options{
		Label: "Save(" + p + ") over a FIFO",
		Unblock: func() { // a reader frees the writer
			if f, err := os.Open(p); err == nil {
				f.Close()
			}
		},
	}, func() { err = Save(p, Settings{HFToken: "hf_x"}) })
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
		t.Errorf("settings file %v: %v", st.Mode(), err)
	}
}
