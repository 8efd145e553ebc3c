package weights_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kleinbild/weights"
)

// TestGuardSaysFileChanged: a fault caught by the guard says that the file changed or
// shrank while it was read, and names the file; it does not repeat the runtime's "invalid
// memory address or nil pointer dereference", which reads as a bug (issue 37 item 16).
func TestGuardSaysFileChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.bin")
	if err := os.WriteFile(path, make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := weights.MapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.Mapped() {
		t.Skip("no memory mapping on this platform")
	}
	if err := os.Truncate(path, 4096); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("Windows refuses to shrink a mapped file, so no fault can happen: %v", err)
		}
		t.Fatal(err)
	}
	var sum byte
	err = weights.Guard(path, func() error {
		for _, b := range m.Bytes() {
			sum += b
		}
		return nil
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !errors.Is(err, weights.ErrFileChanged) || !strings.Contains(msg, path) || !strings.Contains(msg, "changed or shrank") ||
		strings.Contains(msg, "nil pointer") || strings.Contains(msg, "runtime error") {
		t.Fatalf("guarded read of a shrunk file: %v", err)
	}
}
