package desktop

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// shutdownGrace bounds each wait of the shutdown: for the interface's own close (the run's
// cancellation, the settings' save) and then for Fyne's event loop to return.
const shutdownGrace = 15 * time.Second

// shutdown ends the process once the window has gone, even where Fyne's own shutdown
// stalls. Fyne 2.7 can deadlock there (issue 28 item 1): its lifecycle's last event is
// posted to the main thread's queue just as that queue is drained and closed, so the event
// goroutine waits for the main thread, which waits in Lifecycle.WaitForEvents for the event
// goroutine; the process then outlived its window and held the data folder's lock.
//
// begin closes the interface off the main thread (the data folder's lock is released there,
// not after Fyne returns) and starts a watchdog: when Fyne's loop has not returned within
// grace after the close, exit ends the process.
type shutdown struct {
	closeUI func()         // the interface's Close: stops work, saves, releases the lock
	exit    func(code int) // os.Exit in the app
	code    func() int     // the exit status the watchdog ends with
	grace   time.Duration

	once     sync.Once
	closed   chan struct{} // closed once closeUI has returned
	returned chan struct{} // closed once Fyne's Run has returned
	retOnce  sync.Once
}

func newShutdown(closeUI func(), code func() int) *shutdown {
	return &shutdown{
		closeUI: closeUI, exit: os.Exit, code: code, grace: shutdownGrace,
		closed: make(chan struct{}), returned: make(chan struct{}),
	}
}

// begin starts closing (once; from any goroutine, the main thread included: it never waits).
func (s *shutdown) begin() {
	s.once.Do(func() {
		go func() {
			defer close(s.closed)
			s.closeUI()
		}()
		go s.watch()
	})
}

// watch exits the process when the close or Fyne's return takes longer than grace each.
func (s *shutdown) watch() {
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-s.closed:
	case <-t.C:
		fmt.Fprintln(os.Stderr, "kleinbild: closing the window took too long; quitting without waiting")
		s.exit(s.code())
		return
	}
	t.Reset(s.grace)
	select {
	case <-s.returned:
	case <-t.C:
		fmt.Fprintln(os.Stderr, "kleinbild: the window's event loop did not stop; quitting without it")
		s.exit(s.code())
	}
}

// finish is called once Fyne's Run has returned: it starts the close when nothing did and
// waits for it, at most grace. It reports whether the close ended.
func (s *shutdown) finish() bool {
	s.retOnce.Do(func() { close(s.returned) })
	s.begin()
	t := time.NewTimer(s.grace)
	defer t.Stop()
	select {
	case <-s.closed:
		return true
	case <-t.C:
		return false
	}
}
