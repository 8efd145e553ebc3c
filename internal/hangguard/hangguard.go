// Package hangguard lets tests of file handling fail, instead of hanging, when an open, read
// or write blocks (a named pipe with no writer, a device that never answers).
package hangguard

import (
	"testing"
	"time"
)

// Within fails t if fn has not returned after d. The deadline only catches a call that
// blocks forever; it says nothing about speed.
func Within(t testing.TB, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}
