// Package onednn is a compute backend that multiplies by bfloat16 weights natively with Intel's
// oneDNN (dnnl_gemm_bf16bf16f32: AVX512-BF16 or AMX instructions), about twice the rate of
// widening the weights and running an f32 Sgemm. Everything else (all f32 products) goes to the
// f32 backend it wraps.
//
// oneDNN is loaded at run time with dlopen("libdnnl.so.2") (Debian: libdnnl2), so binaries build
// and run without it; New fails when the library is missing or the CPU lacks native bf16.
//
// Numerics: the activations x are rounded to bfloat16 (nearest, ties to even) before the
// product, which changes each product term by up to 2⁻⁹ relative; results differ from the f32
// path by about 1e-3 relative. The backend is therefore an opt-in speed option, not a default.
//
// Threads: oneDNN runs each product on OpenMP threads, one per core by default (OMP_NUM_THREADS
// overrides). All oneDNN calls of the process run on one locked OS thread, so a single OpenMP
// pool exists; its products and the wrapped backend's are issued one at a time by cpu.Backend.
package onednn

import (
	"fmt"
	"math"
	"sync"
)

// F32Backend is the f32 GEMM provider the oneDNN backend wraps (cpu.BLAS, restated here so
// that this package does not import cpu).
type F32Backend interface {
	Name() string
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// loadOnce loads oneDNN once per process: the library is process-wide state by nature.
var loadOnce = sync.OnceValues(load)

// Available reports whether oneDNN loads and the CPU multiplies bf16 natively; if not, the
// error says why.
func Available() error {
	_, err := loadOnce()
	return err
}

// Backend implements cpu.BLAS and cpu.BF16MatMuler: bf16-weight products on oneDNN, f32
// products on the wrapped backend.
type Backend struct {
	lib  *library
	f32  F32Backend
	bufs sync.Pool // *[]uint16 activations rounded to bf16
}

// New returns the oneDNN backend on top of f32, or an error when oneDNN is unavailable (see
// Available).
func New(f32 F32Backend) (*Backend, error) {
	lib, err := loadOnce()
	if err != nil {
		return nil, err
	}
	if f32 == nil {
		return nil, fmt.Errorf("onednn: no f32 backend to wrap")
	}
	return &Backend{lib: lib, f32: f32}, nil
}

// Name implements cpu.BLAS.
func (*Backend) Name() string { return "onednn" }

// Info describes the library and instruction set in use, e.g. "oneDNN 2.6.3, AMX, f32 on openblas".
func (b *Backend) Info() string {
	isa := "AVX512-BF16"
	if b.lib.amx() {
		isa = "AMX"
	}
	return fmt.Sprintf("oneDNN %s, %s, f32 on %s", b.lib.version, isa, b.f32.Name())
}

// F32 returns the wrapped backend that runs the f32 products.
func (b *Backend) F32() F32Backend { return b.f32 }

// Sgemm implements cpu.BLAS by forwarding to the wrapped f32 backend.
func (b *Backend) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	b.f32.Sgemm(transA, transB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// MatMulBF16 implements cpu.BF16MatMuler: y[m,n] = bf16(x[m,k])·wᵀ with w [n,k] bfloat16 bits,
// accumulated in float32, the rows of y ldy apart (ldy ≥ n). It panics if a slice is too short
// (a programming error, as Sgemm).
func (b *Backend) MatMulBF16(y, x []float32, m, n, k int, w []uint16, ldy int) {
	if m < 0 || n < 0 || k < 0 || ldy < max(n, 1) || len(x) < m*k || len(w) < n*k || m > 0 && len(y) < (m-1)*ldy+n {
		panic(fmt.Sprintf("onednn: MatMulBF16 m=%d n=%d k=%d ldy=%d with len(x)=%d len(w)=%d len(y)=%d", m, n, k, ldy, len(x), len(w), len(y)))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := range m {
			clear(y[i*ldy : i*ldy+n])
		}
		return
	}
	buf := b.getBuf(m * k)
	defer b.bufs.Put(buf)
	xb := *buf
	roundParallel(xb, x[:m*k])
	if st := b.lib.gemmNT(m, n, k, xb, w, y, ldy); st != 0 {
		// Only invalid arguments or out-of-memory make oneDNN fail; the arguments were checked.
		panic(fmt.Sprintf("onednn: dnnl_gemm_bf16bf16f32 m=%d n=%d k=%d failed with status %d", m, n, k, st))
	}
}

func (b *Backend) getBuf(n int) *[]uint16 {
	if p, ok := b.bufs.Get().(*[]uint16); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]uint16, n)
	return &s
}

// roundParallel rounds src to bfloat16 into dst on two goroutines when it is large.
func roundParallel(dst []uint16, src []float32) {
	const grain = 1 << 16
	if len(src) < 2*grain {
		roundBF16(dst, src)
		return
	}
	h := len(src) / 2
	done := make(chan struct{})
	go func() {
		roundBF16(dst[h:], src[h:])
		close(done)
	}()
	roundBF16(dst[:h], src[:h])
	<-done
}

// roundBF16 rounds to the nearest bfloat16, ties to even, as torch's .to(torch.bfloat16); NaN
// stays NaN (quiet).
func roundBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, f := range src {
		u := math.Float32bits(f)
		if u&0x7fffffff > 0x7f800000 {
			dst[i] = uint16(u>>16) | 0x40
			continue
		}
		dst[i] = uint16((u + 0x7fff + (u>>16)&1) >> 16)
	}
}
