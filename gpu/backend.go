package gpu

// Backend is what a compute backend must provide: single-precision GEMM on row-major data.
// Everything else lives in Device so that backends stay small.
type Backend interface {
	// Name identifies the backend in logs and benchmarks ("openblas", "purego", ...).
	Name() string
	// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where op(A) is
	// m×k, op(B) is k×n and C is m×n; lda, ldb, ldc are the row strides.
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// BF16MatMuler is implemented by backends that multiply by bfloat16 weights natively.
type BF16MatMuler interface {
	// MatMulBF16 computes y[m,n] = x[m,k]·wᵀ where w is [n,k] bfloat16 bits (PyTorch Linear layout).
	MatMulBF16(y, x []float32, m, n, k int, w []uint16)
}

// Weight is a matrix stored [Out, In] row-major as in PyTorch's Linear (a conv kernel
// [O, C, KH, KW] is Weight{Out: O, In: C·KH·KW}). Exactly one of F32 and BF16 is set; both are
// usually views into a memory-mapped checkpoint and are never modified.
type Weight struct {
	Out, In int
	F32     []float32
	BF16    []uint16
}
