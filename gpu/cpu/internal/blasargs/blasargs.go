// Package blasargs holds the argument checks and edge cases shared by the cgo GEMM backends,
// which hand raw pointers to C and so must never see a slice shorter than the call reads.
package blasargs

import (
	"fmt"
	"math"
)

// Check panics, like gonum's BLAS, when a row-major Sgemm call would read or write outside
// its slices or has a dimension that does not fit a 32-bit BLAS integer. It is a programming
// error, not a data error: kernels derive these sizes from shapes they validated.
func Check(transA, transB bool, m, n, k int, lenA, lda, lenB, ldb, lenC, ldc int) {
	if err := check(transA, transB, m, n, k, lenA, lda, lenB, ldb, lenC, ldc); err != nil {
		panic("sgemm: " + err.Error())
	}
}

func check(transA, transB bool, m, n, k int, lenA, lda, lenB, ldb, lenC, ldc int) error {
	for _, v := range [...]int{m, n, k, lda, ldb, ldc} {
		if v < 0 || v > math.MaxInt32 {
			return fmt.Errorf("dimension %d out of range (m=%d n=%d k=%d lda=%d ldb=%d ldc=%d)", v, m, n, k, lda, ldb, ldc)
		}
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	if err := operand("A", rowsA, colsA, lenA, lda); err != nil {
		return err
	}
	if err := operand("B", rowsB, colsB, lenB, ldb); err != nil {
		return err
	}
	return operand("C", m, n, lenC, ldc)
}

func operand(name string, rows, cols, length, ld int) error {
	if ld < max(1, cols) {
		return fmt.Errorf("ld%s=%d < %d columns", name, ld, cols)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	if need := (rows-1)*ld + cols; length < need {
		return fmt.Errorf("%s has %d elements, a %d×%d matrix with stride %d needs %d", name, length, rows, cols, ld, need)
	}
	return nil
}

// ScaleC sets C = beta·C for an m×n row-major matrix; beta 0 writes zeros (never 0·NaN).
// Backends use it for k == 0, where there is no product and A or B may be empty.
func ScaleC(m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// Prepare checks a row-major Sgemm call (see Check) and does the calls that need no BLAS:
// an empty C, and k == 0 (C = beta·C, see ScaleC). It reports whether the backend must still
// call its BLAS, which then sees only non-empty, in-bounds operands.
func Prepare(transA, transB bool, m, n, k int, beta float32, lenA, lda, lenB, ldb int, c []float32, ldc int) bool {
	Check(transA, transB, m, n, k, lenA, lda, lenB, ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return false
	}
	if k == 0 {
		ScaleC(m, n, beta, c, ldc)
		return false
	}
	return true
}
