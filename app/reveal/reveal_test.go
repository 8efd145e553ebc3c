package reveal

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestCommandShowsTheFolder(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("xdg-open layout only")
	}
	file := filepath.Join(t.TempDir(), "a.png")
	cmd := command(file)
	if want := []string{"xdg-open", filepath.Dir(file)}; !slices.Equal(cmd.Args, want) {
		t.Errorf("command %q, want %q", cmd.Args, want)
	}
}

// Issue 22 item 12: without xdg-open (open, explorer) the message says what is missing and
// where the file is, not exec's raw error.
func TestMissingOpenerIsExplained(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no program at all
	dir := t.TempDir()
	for name, err := range map[string]error{"File": File(filepath.Join(dir, "a.png")), "Folder": Folder(dir)} {
		if err == nil {
			t.Fatalf("%s: no error without the opener", name)
		}
		msg := err.Error()
		if strings.Contains(msg, "exec:") || !strings.Contains(msg, "is not installed") || !strings.Contains(msg, dir) {
			t.Errorf("%s: %q", name, msg)
		}
	}
}
