package reveal

import (
	"path/filepath"
	"runtime"
	"slices"
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
