package desktop

import (
	"testing"
	"time"
)

// testShutdown is a shutdown whose exit reports on a channel instead of ending the process.
func testShutdown(closeUI func()) (*shutdown, chan int) {
	exited := make(chan int, 2)
	s := newShutdown(closeUI, func() int { return 3 })
	s.exit = func(code int) { exited <- code }
	s.grace = 20 * time.Millisecond
	return s, exited
}

// Issue 28 item 1: when Fyne's event loop never returns after the window closed (its
// shutdown deadlock), the watchdog still closes the interface, which releases the data
// folder, and ends the process; begin itself never waits (it runs on the main thread).
func TestShutdownEndsAStalledLoop(t *testing.T) {
	closed := make(chan struct{})
	s, exited := testShutdown(func() { close(closed) })
	s.begin()
	s.begin() // a second call (the lifecycle's stop after the window's close) does nothing more
	<-closed
	if code := <-exited; code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
}

// A close that hangs (a run that ignores its cancellation) cannot keep the process alive.
func TestShutdownBoundsAHangingClose(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	s, exited := testShutdown(func() { <-hang })
	if s.finish() {
		t.Error("finish reported a hanging close as ended")
	}
	<-exited
}

// A normal quit: Fyne returns, the close ends, and nothing exits the process.
func TestShutdownNormalQuit(t *testing.T) {
	calls := 0
	s, exited := testShutdown(func() { calls++ })
	s.grace = time.Minute
	s.begin()
	if !s.finish() {
		t.Fatal("finish did not see the close end")
	}
	s.finish()
	if calls != 1 {
		t.Errorf("closed %d times", calls)
	}
	select {
	case code := <-exited:
		t.Errorf("exited with %d after a normal quit", code)
	default:
	}
}
