package download

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// Issue 35: a checksum mismatch is a *ChecksumError (matching ErrChecksum) in the words it
// had, and the report takes its Detail instead of trimming the text.
func TestChecksumError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.bin")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := checkFile(context.Background(), p, RemoteFile{Path: "vae/f.bin", Size: 4}, nil)
	var ce *ChecksumError
	if !errors.As(err, &ce) || !errors.Is(err, ErrChecksum) || ce.Detail != "3 bytes, expected 4" {
		t.Fatalf("%v (%T): not a *ChecksumError", err, err)
	}
	if want := "vae/f.bin: 3 bytes, expected 4: checksum mismatch"; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
}

// Issue 35: a broken scheduler config is reported under its own path in the folder, worded
// from the *sched.ConfigError's fields (the full path replaced in the text before).
func TestValidateSchedulerConfigWording(t *testing.T) {
	dir := t.TempDir()
	linkTree(t, golden.TinyModel(t), dir)
	rel := "scheduler/scheduler_config.json"
	replaceFile(t, dir, rel, []byte(`{"shift": "x"}`))
	r, err := Validate(context.Background(), dir, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range r.Problems {
		if p.Path == rel {
			found = true
			if !strings.HasPrefix(p.Detail, "scheduler config "+rel+": ") || strings.Contains(p.Detail, dir) {
				t.Errorf("detail %q", p.Detail)
			}
		}
	}
	if !found {
		t.Errorf("no problem under %s:\n%s", rel, problems(r))
	}
}
