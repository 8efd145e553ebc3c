//go:build cgo && !noblas

// Package openblas is the OpenBLAS compute backend (cgo; Debian's libopenblas-dev). It builds
// when cgo is on and the noblas tag is off, and implements cpu.BLAS without importing package cpu.
//
// OpenBLAS runs each sgemm on its own thread pool, sized to the machine's cores by New. Calls
// from several goroutines at once are safe, but OpenBLAS serialises multi-threaded level-3 calls
// on an internal lock, so concurrent calls buy nothing: callers should issue large products one
// at a time and parallelise their own Go work around them (see the cpu package's attention kernel).
package openblas

/*
#cgo pkg-config: openblas
#include <cblas.h>

static void sgemm_row_major(int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
		const float *b, int ldb, float beta, float *c, int ldc) {
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
*/
import "C"

import (
	"runtime"

	"kleinbild/gpu/cpu/internal/blasargs"
)

// Backend implements cpu.BLAS with OpenBLAS's cblas_sgemm.
type Backend struct{}

// New returns the OpenBLAS backend and sets OpenBLAS's (process-wide) thread count to the number
// of usable cores.
func New() *Backend {
	C.openblas_set_num_threads(C.int(runtime.NumCPU()))
	return &Backend{}
}

// Name implements cpu.BLAS.
func (*Backend) Name() string { return "openblas" }

// Threads reports how many threads OpenBLAS uses for one call.
func (*Backend) Threads() int { return int(C.openblas_get_num_threads()) }

// CoreName reports the kernel set OpenBLAS uses ("Haswell", "SkylakeX", "Cooperlake", ...):
// its pick for this CPU when the process loaded it, or the one forced by the environment
// variable OPENBLAS_CORETYPE. On an AVX-512 machine the AVX2 "Haswell" kernels run sgemm about
// 1.6× slower per core than "SkylakeX" or "Cooperlake".
func (*Backend) CoreName() string { return C.GoString(C.openblas_get_corename()) }

// Sgemm implements cpu.BLAS: C = alpha·op(A)·op(B) + beta·C, row-major. It panics if a slice
// is too short for the given sizes and strides.
func (*Backend) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !blasargs.Prepare(transA, transB, m, n, k, beta, len(a), lda, len(b), ldb, c, ldc) {
		return
	}
	C.sgemm_row_major(cbool(transA), cbool(transB), C.int(m), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(&a[0]), C.int(lda), (*C.float)(&b[0]), C.int(ldb), C.float(beta), (*C.float)(&c[0]), C.int(ldc))
}

func cbool(v bool) C.int {
	if v {
		return 1
	}
	return 0
}
