package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlain: a missing file and a refused one are said in plain words, wrapped or not;
// other errors pass unchanged.
func TestPlain(t *testing.T) {
	_, err := os.Stat(filepath.Join(t.TempDir(), "gone"))
	if got := Plain(err).Error(); got != "no such file or folder" {
		t.Errorf("missing: %q", got)
	}
	if got := Plain(fmt.Errorf("open x: %w", fs.ErrPermission)).Error(); got != "permission denied" {
		t.Errorf("refused: %q", got)
	}
	other := errors.New("disk on fire")
	if Plain(other) != other {
		t.Error("another error was changed")
	}
}

// TestFriendly: a missing path is said as "does not exist", in place of Go's "stat …".
func TestFriendly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := os.Stat(missing)
	msg := Friendly(fmt.Errorf("model: %w", err))
	if strings.Contains(msg, "stat ") || msg != "model: "+missing+" does not exist (moved, renamed or deleted?)" {
		t.Errorf("Friendly: %q", msg)
	}
}
