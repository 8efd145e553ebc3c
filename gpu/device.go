package gpu

import (
	"runtime"
	"sync"
)

// Device runs the model kernels on a Backend, splitting element-wise and row-wise work over
// goroutines. Its kernels may be called from several goroutines at once (scratch buffers come
// from per-Device pools), though one generation at a time already keeps both cores busy.
type Device struct {
	backend Backend
	workers int

	// Scratch buffers reused across calls, one pool per purpose so that sizes stay stable:
	// bf16→f32 weight tiles (Linear), attention score tiles, im2col tiles and converted conv
	// kernels (Conv2D).
	linearTiles, attnScores, convCols, convKernels scratch
}

// NewDevice returns a Device on backend b using all available cores for Go kernels.
func NewDevice(b Backend) *Device {
	return &Device{backend: b, workers: runtime.GOMAXPROCS(0)}
}

// Backend returns the underlying GEMM backend.
func (d *Device) Backend() Backend { return d.backend }

// Name is the backend's name.
func (d *Device) Name() string { return d.backend.Name() }

// Parallel calls fn on disjoint sub-ranges [lo, hi) covering [0, n), concurrently over the
// device's workers. Small n runs inline.
func (d *Device) Parallel(n int, fn func(lo, hi int)) {
	w := d.workers
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

// Sgemm forwards to the backend: C = alpha·op(A)·op(B) + beta·C (row-major).
func (d *Device) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	d.backend.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
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
