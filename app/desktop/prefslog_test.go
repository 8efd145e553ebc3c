package desktop

import (
	"bytes"
	"errors"
	"io"
	"log"
	"testing"

	"fyne.io/fyne/v2"
)

// TestPrefsEOFFilter: Fyne's report of a preferences file read while another instance was
// rewriting it ("Preferences load error" with cause EOF) is dropped (issue 37 item 15);
// its other reports, with other causes or of other errors, and other lines pass unchanged.
func TestPrefsEOFFilter(t *testing.T) {
	var out bytes.Buffer
	prev, flags := log.Writer(), log.Flags()
	defer func() { log.SetOutput(prev); log.SetFlags(flags) }()
	log.SetOutput(&prefsEOFFilter{out: &out})
	log.SetFlags(log.LstdFlags)

	fyne.LogError("Preferences load error:", io.EOF)
	fyne.LogError("Preferences load error:", io.ErrUnexpectedEOF)
	if out.Len() != 0 {
		t.Errorf("the end-of-file reports were printed:\n%s", out.String())
	}
	fyne.LogError("Preferences load error:", errors.New("invalid character 'x'"))
	log.Print("kleinbild: something else")
	fyne.LogError("Failed on saving preferences", io.EOF)
	got := out.String()
	for _, want := range []string{"Preferences load error:", "invalid character 'x'", "kleinbild: something else", "Failed on saving preferences", "Cause: EOF"} {
		if !bytes.Contains([]byte(got), []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != 7 {
		t.Errorf("%d lines, want 7 (two reports of three lines, one other):\n%s", n, got)
	}
}
