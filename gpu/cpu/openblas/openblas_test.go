//go:build cgo && !noblas

package openblas

import (
	"runtime"
	"testing"
)

func TestThreadsAndCore(t *testing.T) {
	b := New()
	if got := b.Threads(); got != runtime.NumCPU() {
		t.Errorf("Threads() = %d, want %d", got, runtime.NumCPU())
	}
	core := b.CoreName()
	if core == "" {
		t.Fatal("CoreName() is empty")
	}
	t.Logf("OpenBLAS kernels: %s", core)
}

// TestSgemm is a smoke test of the cgo call (the conformance suite, gpu/gputest, checks every
// operation in depth): a 2×3 by 3×2 product with strides and beta.
func TestSgemm(t *testing.T) {
	a := []float32{1, 2, 3, 0, 4, 5, 6, 0} // 2×3, lda 4
	b := []float32{1, 0, 0, 1, 1, 1}       // 3×2
	c := []float32{10, 20, -1, 30, 40, -1} // 2×2, ldc 3
	New().Sgemm(false, false, 2, 2, 3, 2, a, 4, b, 2, 0.5, c, 3)
	want := []float32{2*(1+3) + 5, 2*(2+3) + 10, -1, 2*(4+6) + 15, 2*(5+6) + 20, -1}
	for i := range want {
		if c[i] != want[i] {
			t.Fatalf("c = %v, want %v", c, want)
		}
	}
}
