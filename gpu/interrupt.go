package gpu

import "context"

// Interrupter is implemented by backends whose single ops can run long enough to delay a
// cancellation (the CPU backend: one Linear of a 4B model takes a quarter of a second, a
// layer of them seconds), so that a cancel stops them part-way instead of at the model's
// next Flush.
type Interrupter interface {
	// Interrupt watches ctx until stop is called. Once ctx is done, the op running stops at
	// its next safe point (the CPU backend's Linear between weight tiles), later ops are
	// skipped, and the next Read, Flush or Sync returns an error wrapping ctx.Err() (and
	// its cause), which also clears the interruption. The outputs of an interrupted or skipped op are
	// undefined. As with the backend's other errors, the interruption is shared by every
	// caller of the backend.
	Interrupt(ctx context.Context) (stop func())
}

// Interrupt calls b.Interrupt(ctx) where b is an Interrupter; elsewhere ops run to their
// end and cancellation takes effect between Flushes. The stop it returns is never nil.
func Interrupt(ctx context.Context, b Backend) (stop func()) {
	if i, ok := b.(Interrupter); ok {
		return i.Interrupt(ctx)
	}
	return func() {}
}
