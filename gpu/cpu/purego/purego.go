// Package purego is the pure-Go compute backend (gonum's parallel Sgemm). It builds with
// CGO_ENABLED=0 and runs everywhere, an order of magnitude slower than BLAS.
package purego

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Backend implements cpu.BLAS with gonum.
type Backend struct{ impl gonum.Implementation }

// New returns the pure-Go backend.
func New() *Backend { return &Backend{} }

// Name implements cpu.BLAS.
func (*Backend) Name() string { return "purego" }

// Sgemm implements cpu.BLAS.
func (b *Backend) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				if beta == 0 {
					row[j] = 0
				} else {
					row[j] *= beta
				}
			}
		}
		return
	}
	b.impl.Sgemm(ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}
