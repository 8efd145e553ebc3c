package cpu

import (
	"context"
	"errors"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
)

// cancellingBLAS counts its products and, at the first one, calls onFirst (which cancels a
// context and waits for the backend to see it).
type cancellingBLAS struct {
	BLAS
	calls   int
	onFirst func()
}

func (c *cancellingBLAS) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	c.calls++
	if c.calls == 1 && c.onFirst != nil {
		c.onFirst()
	}
	c.BLAS.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

// waitHalted waits until the backend has seen an Interrupt's context end.
func waitHalted(t *testing.T, b *Backend) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !b.halted.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the backend never saw the cancellation")
		}
	}
}

// TestInterruptStopsLinearBetweenTiles: a cancel during a Linear of three weight tiles stops
// it after the tile in progress, the ops after it are skipped, Flush reports the
// cancellation (once), and the backend then computes again.
func TestInterruptStopsLinearBetweenTiles(t *testing.T) {
	const rows, in, out = 2, 32768, 600 // tiles of 256, 256 and 88 weight rows
	cb := &cancellingBLAS{BLAS: purego.New()}
	b := New(cb)
	x := mustF32(t, b, make([]float32, rows*in), rows, in)
	w, err := b.WeightF32(make([]float32, out*in), out, in)
	if err != nil {
		t.Fatal(err)
	}
	y := mustF32(t, b, make([]float32, rows*out), rows, out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cb.onFirst = func() { cancel(); waitHalted(t, b) }
	stop := b.Interrupt(ctx)
	b.Linear(y, x, w, gpu.Tensor{}, rows)
	b.Linear(y, x, w, gpu.Tensor{}, rows) // skipped
	stop()
	if cb.calls != 1 {
		t.Errorf("%d products ran after a cancel in the first of 6 tiles, want 1", cb.calls)
	}
	if err := b.Flush(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush after the cancel: %v, want context.Canceled", err)
	}
	if err := b.Flush(); err != nil {
		t.Fatalf("second Flush: %v", err)
	}
	cb.calls, cb.onFirst = 0, nil
	b.Linear(y, x, w, gpu.Tensor{}, rows)
	if err := b.Sync(); err != nil || cb.calls != 3 {
		t.Errorf("after the cancel was reported: %d products, err %v; want 3, nil", cb.calls, err)
	}
}

// TestInterruptRaceAtTheEnd: a context that ends after every op of its pass ran whole, but
// before stop, leaves no error behind; one that ends after stop is ignored; one whose end an
// op saw keeps its error past stop.
func TestInterruptRaceAtTheEnd(t *testing.T) {
	b := New(purego.New())
	x := mustF32(t, b, []float32{1, 2}, 1, 2)
	y := mustF32(t, b, make([]float32, 2), 1, 2)

	ctx, cancel := context.WithCancel(context.Background())
	stop := b.Interrupt(ctx)
	b.Add(y, x, x)
	cancel()
	waitHalted(t, b)
	stop()
	if err := b.Sync(); err != nil {
		t.Errorf("cancel after the last op, before stop: Sync = %v, want nil", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	stop = b.Interrupt(ctx)
	stop()
	cancel()
	time.Sleep(10 * time.Millisecond)
	b.Add(y, x, x)
	if err := b.Sync(); err != nil {
		t.Errorf("cancel after stop: Sync = %v, want nil", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	stop = b.Interrupt(ctx)
	cancel()
	waitHalted(t, b)
	b.Upload(y, []float32{5, 6}) // skipped: y's contents are undefined now
	stop()
	if err := b.Sync(); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel seen by an op: Sync = %v, want context.Canceled", err)
	}
}

// TestInterruptKeepsCanceledAndCause: the error wraps context.Canceled (callers tell a
// cancel from a failure by it) and a cause given to the context.
func TestInterruptKeepsCanceledAndCause(t *testing.T) {
	b := New(purego.New())
	cause := errors.New("the user pressed Cancel")
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := b.Interrupt(ctx)
	defer stop()
	cancel(cause)
	waitHalted(t, b)
	b.Upload(mustAlloc(t, b, 1), []float32{1})
	err := b.Sync()
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("Sync = %v, want it to wrap context.Canceled and the cause", err)
	}
}
