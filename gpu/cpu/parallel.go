package cpu

import (
	"runtime/debug"
	"sync"
)

// parallel calls fn on disjoint sub-ranges [lo, hi) covering [0, n), concurrently over the
// backend's workers. Small n runs inline.
//
// A worker goroutine runs with debug.SetPanicOnFault, so a memory fault there (a mapped
// weight file truncated under the backend) becomes a panic; the first panic of any worker is
// re-raised on the calling goroutine once all workers have returned, where the caller can
// recover it (engine turns it into an error naming the file). Unrecovered, it still ends the
// process, as a panic rather than a SIGBUS.
func (b *Backend) parallel(n int, fn func(lo, hi int)) {
	w := b.workers
	if w > n {
		w = n
	}
	if w <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		fault any
	)
	chunk := (n + w - 1) / w
	for lo := chunk; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			debug.SetPanicOnFault(true) // a fresh goroutine: nothing to restore
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if fault == nil {
						fault = r
					}
					mu.Unlock()
				}
			}()
			fn(lo, hi)
		}(lo, hi)
	}
	func() {
		defer wg.Wait()      // the workers are done with the caller's buffers even if fn panics
		fn(0, min(chunk, n)) // the first chunk runs on the calling goroutine
	}()
	if fault != nil {
		panic(fault)
	}
}

// scratch is a pool of float32 buffers, safe for concurrent use. A pooled buffer that is too
// small is dropped and replaced, so the pool settles on the largest size a caller needs.
type scratch struct{ pool sync.Pool }

// get returns a buffer of length n (contents undefined); give it back with put.
func (s *scratch) get(n int) *[]float32 {
	if b, ok := s.pool.Get().(*[]float32); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]float32, n)
	return &b
}

func (s *scratch) put(b *[]float32) { s.pool.Put(b) }
