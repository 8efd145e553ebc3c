package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, item 11: download writes no terminal control codes into a pipe or file.
func TestDownloadNoControlCodesIntoPipes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	}))
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL)
	t.Setenv("HF_TOKEN", "")
	code, stdout, errOut := run(t, "download", "--connections", "1", "-o", filepath.Join(t.TempDir(), "m"))
	if code != 1 || !strings.Contains(errOut, "Downloading") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	if strings.ContainsAny(stdout+errOut, "\r\x1b") {
		t.Errorf("control codes in non-terminal output: %q", errOut)
	}
}

// The terminal form redraws one line; the pipe form prints plain lines.
func TestStatusLine(t *testing.T) {
	var b bytes.Buffer
	s := newStatusLine(&b, false)
	s.show("one", false)
	s.show("two", false) // within the interval: dropped
	s.note("a note")
	s.show("done", true)
	s.clear()
	if got := b.String(); got != "one\na note\ndone\n" {
		t.Errorf("pipe output %q", got)
	}
	b.Reset()
	s = newStatusLine(&b, true)
	s.show("one", false)
	s.note("a note")
	s.show("done", true)
	s.clear()
	if got := b.String(); got != "\r\x1b[Kone\r\x1b[Ka note\n\r\x1b[Kdone\r\x1b[K" {
		t.Errorf("terminal output %q", got)
	}
}
