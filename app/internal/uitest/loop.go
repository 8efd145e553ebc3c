// Package uitest holds what the app's UI tests share: an event loop standing in for the
// Fyne UI goroutine, a test window and the shell over a temporary data folder, finders for
// widgets inside a window, layout checks and small fixtures. Only tests import it.
package uitest

import (
	"sync"
	"testing"
	"time"
)

// MinWait is the least WaitFor waits before it fails: CI machines are often loaded by other
// work, and the timeout only bounds how long a failing test takes to say so.
const MinWait = 60 * time.Second

// Loop is an event loop run by the test goroutine in place of the Fyne UI goroutine:
// background work posts closures, and the test runs them while it waits, so all widget
// access stays on one goroutine as in the real app.
type Loop struct {
	T testing.TB
	// Banner, when set, gives the error banner's text, which a timed-out WaitFor names.
	Banner func() string

	mu     sync.Mutex
	queue  []func()
	closed bool
}

// NewLoop is an empty loop failing t.
func NewLoop(t testing.TB) *Loop { return &Loop{T: t} }

// Post queues fn for the loop; once the loop is closed it drops fn.
func (l *Loop) Post(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.queue = append(l.queue, fn)
	}
}

// Pump runs the queued closures; it reports whether there were any.
func (l *Loop) Pump() bool {
	l.mu.Lock()
	q := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, fn := range q {
		fn()
	}
	return len(q) > 0
}

// WaitFor runs the loop until cond holds, failing the test after the timeout (at least
// MinWait).
func (l *Loop) WaitFor(what string, timeout time.Duration, cond func() bool) {
	l.T.Helper()
	timeout = max(timeout, MinWait)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			if l.Banner != nil {
				l.T.Fatalf("timed out after %v waiting for %s (banner: %q)", timeout, what, l.Banner())
			}
			l.T.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		if !l.Pump() {
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// Wait runs the loop until done is closed (failing after MinWait).
func (l *Loop) Wait(what string, done <-chan struct{}) {
	l.T.Helper()
	l.WaitFor(what, 0, func() bool { return IsClosed(done) })
}

// Settle runs the loop until it has been quiet for a moment.
func (l *Loop) Settle() {
	quiet := 0
	for quiet < 10 {
		if l.Pump() {
			quiet = 0
		} else {
			quiet++
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// Close runs stop (the UI's shutdown) on another goroutine while still serving the posts,
// like the real app, and then closes the loop. It reports false, doing nothing, when the
// loop was closed already.
func (l *Loop) Close(stop func()) bool {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return false
	}
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	for {
		select {
		case <-done:
			l.mu.Lock()
			l.closed = true
			l.mu.Unlock()
			return true
		default:
			if !l.Pump() {
				time.Sleep(time.Millisecond)
			}
		}
	}
}

// IsClosed reports whether c is closed (without blocking).
func IsClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
