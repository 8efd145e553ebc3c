// Package fanout runs one function over disjoint ranges on several goroutines, so that a
// memory fault on any of them reaches the caller: the one way the backends split work that
// may read a mapped file.
package fanout

import (
	"runtime/debug"
	"sync"
)

// Ranges calls fn on disjoint sub-ranges [lo, hi) covering [0, n), on up to workers
// goroutines; the first range runs on the calling goroutine, and small n runs inline.
//
// Each other goroutine runs with debug.SetPanicOnFault, so a memory fault there (a mapped
// weight file truncated while it is read) becomes a panic; the first panic of any of them is
// raised again on the calling goroutine once all have returned, where the caller can recover
// it (engine and weights.Guard turn it into an error naming the file). Unrecovered, it still
// ends the process, as a panic rather than a SIGBUS.
func Ranges(n, workers int, fn func(lo, hi int)) {
	w := min(workers, n)
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
		go func() {
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
		}()
	}
	func() {
		defer wg.Wait()      // the others are done with the caller's buffers even if fn panics
		fn(0, min(chunk, n)) // the first range runs on the calling goroutine
	}()
	if fault != nil {
		panic(fault)
	}
}
