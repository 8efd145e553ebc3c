package cpu

import (
	"sync"

	"kleinbild/internal/fanout"
)

// parallel calls fn on disjoint sub-ranges [lo, hi) covering [0, n), concurrently over the
// backend's workers (fanout.Ranges: a memory fault on a worker, such as a mapped weight
// file truncated under the backend, is raised again on the calling goroutine, where engine
// turns it into an error naming the file). Small n runs inline.
func (b *Backend) parallel(n int, fn func(lo, hi int)) { fanout.Ranges(n, b.workers, fn) }

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
