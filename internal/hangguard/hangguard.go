// Package hangguard lets tests of file handling fail, instead of hanging, when an open, read
// or write blocks (a named pipe with no writer, a device that never answers).
package hangguard

import (
	"testing"
	"time"
)

// Options name a guarded call and say how to free it once it has blocked.
type Options struct {
	// Label names what blocked in the failure, such as "Load(/tmp/…/fifo.json)".
	Label string
	// Unblock, when set, runs once the deadline has passed, to free the blocked call (it
	// opens the named pipe the call writes to, say); t then fails only after fn has
	// returned, so that nothing fn uses is torn down under it.
	Unblock func()
}

// Within fails t if fn has not returned after d. The deadline only catches a call that
// blocks forever; it says nothing about speed.
func Within(t testing.TB, d time.Duration, fn func()) {
	t.Helper()
	WithinOptions(t, d, Options{}, fn)
}

// WithinLabel is Within whose failure names label: what blocked.
func WithinLabel(t testing.TB, d time.Duration, label string, fn func()) {
	t.Helper()
	WithinOptions(t, d, Options{Label: label}, fn)
}

// WithinOptions is Within with a label for the failure and a way to free the blocked call.
func WithinOptions(t testing.TB, d time.Duration, o Options, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	if o.Unblock != nil {
		o.Unblock()
		<-done
	}
	if o.Label == "" {
		t.Fatalf("still blocked after %v", d)
		return
	}
	t.Fatalf("%s: still blocked after %v", o.Label, d)
}
