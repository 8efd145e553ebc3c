//go:build darwin && cgo

// Package accelerate is the macOS compute backend: cblas_sgemm from Apple's Accelerate framework.
// It implements cpu.BLAS without importing package cpu.
package accelerate

/*
#cgo LDFLAGS: -framework Accelerate
#include <Accelerate/Accelerate.h>

static void sgemm_row_major(int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
		const float *b, int ldb, float beta, float *c, int ldc) {
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
		m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
*/
import "C"

import "kleinbild/gpu/cpu/internal/blasargs"

// Backend implements cpu.BLAS with Accelerate's cblas_sgemm.
type Backend struct{}

// New returns the Accelerate backend.
func New() *Backend { return &Backend{} }

// Name implements cpu.BLAS.
func (*Backend) Name() string { return "accelerate" }

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
