package gpu

import (
	"runtime"
	"sync"
)

// Device runs the model kernels on a Backend, splitting element-wise and row-wise work over
// goroutines. It is safe for use by one generation at a time.
type Device struct {
	backend Backend
	workers int
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
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
	}
	wg.Wait()
}

// Sgemm forwards to the backend: C = alpha·op(A)·op(B) + beta·C (row-major).
func (d *Device) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	d.backend.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
