package cpu

import (
	"context"
	"fmt"

	"kleinbild/gpu"
)

var _ gpu.Interrupter = (*Backend)(nil)

// Interrupt implements gpu.Interrupter: once ctx is done, the op running stops at its next
// tile (Linear between weight tiles, Conv2D between pixel tiles, Attention between heads),
// later ops are skipped, and the next Read, Flush or Sync returns "cpu: interrupted: ERR"
// (wrapping ctx.Err() and, where it differs, its cause).
// A cause that arrives after stop is dropped; one that no op has seen yet when stop is
// called (every op ran whole) is dropped by stop, so a cancel racing the end of a pass does
// not fail the backend's next user.
func (b *Backend) Interrupt(ctx context.Context) (stop func()) {
	w := &watch{}
	unregister := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if w.stopped {
			return
		}
		w.err = fmt.Errorf("cpu: interrupted: %w", ctx.Err())
		if cause := context.Cause(ctx); cause != ctx.Err() { // e.g. signal.NotifyContext's
			w.err = fmt.Errorf("cpu: interrupted: %w: %w", cause, ctx.Err())
		}
		if b.err == nil {
			b.err = w.err
			b.cut.Store(false)
			b.halted.Store(true)
		}
	})
	return func() {
		unregister()
		b.mu.Lock()
		defer b.mu.Unlock()
		w.stopped = true
		if w.err != nil && b.err == w.err && !b.cut.Load() {
			b.err = nil
			b.halted.Store(false)
		}
	}
}

// watch is the state of one Interrupt, guarded by the backend's mu.
type watch struct {
	err     error // the error it kept, once ctx ended
	stopped bool
}

// interrupted reports whether an Interrupt's context ended and its error was not taken yet;
// ops check it before (more) work and skip what is left when it is true.
func (b *Backend) interrupted() bool {
	if !b.halted.Load() {
		return false
	}
	b.cut.Store(true)
	return true
}
