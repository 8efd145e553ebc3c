package form

import (
	"os"
	"testing"

	"kleinbild/internal/testhome"
)

// TestMain runs the tests with a temporary home and XDG folders: none writes into the
// user's cache or configuration.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }
