package safefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRegular(p, 100)
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("ReadRegular = %q, %v", got, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRegular(link, 100); err != nil || string(got) != `{"a":1}` {
		t.Fatalf("through a symlink: %q, %v", got, err)
	}
	if _, err := ReadRegular(p, 3); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("over the limit: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if got, err := ReadRegular(empty, 10); err != nil || len(got) != 0 {
		t.Errorf("empty file: %q, %v", got, err)
	}
	if _, err := ReadRegular(dir, 10); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	big := bytes.Repeat([]byte("x"), 100000)
	os.WriteFile(p, big, 0o644)
	if got, err := ReadRegular(p, 0); err != nil || !bytes.Equal(got, big) {
		t.Errorf("no limit: %d bytes, %v", len(got), err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1 << 20: "1 MiB", 3 << 29: "1.5 GiB", 64 << 20: "64 MiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
