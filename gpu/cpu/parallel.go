package cpu

import "sync"

// parallel calls fn on disjoint sub-ranges [lo, hi) covering [0, n), concurrently over the
// backend's workers. Small n runs inline.
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
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := chunk; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
	}
	fn(0, min(chunk, n)) // the first chunk runs on the calling goroutine
	wg.Wait()
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
