package modelui

import (
	"os"
	"testing"

	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders: none writes into the
// user's cache or configuration (TestHomeIsTemporary).
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }

// TestHomeIsTemporary: the tests' home, cache and configuration folders are temporary.
func TestHomeIsTemporary(t *testing.T) { testhome.Check(t) }
