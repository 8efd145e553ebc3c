package cpu

import (
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// TestLinearSmoke: a tiny Linear with bias by f32 and bf16 weights, exactly.
func TestLinearSmoke(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		x := mustF32(t, b, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		w, err := b.WeightF32([]float32{1, 0, 0, 0, 1, 1}, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := b.WeightBF16([]uint16{0x3f80, 0, 0, 0, 0x3f80, 0x3f80}, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		bias := mustF32(t, b, []float32{10, 20})
		for _, wt := range []gpu.Tensor{w, wb} {
			y := mustAlloc(t, b, 2, 2)
			b.Linear(y, x, wt, bias, 2)
			got := mustRead(t, b, y)
			want := []float32{11, 25, 14, 31}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v: got %v, want %v", wt.DType(), got, want)
				}
			}
		}
	})
}

// TestLinearEmpty: a Linear over zero input features is the bias (or zero), on every provider.
func TestLinearEmpty(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *Backend) {
		x := mustAlloc(t, b, 2, 0)
		for _, bf16 := range []bool{false, true} {
			w, err := b.WeightF32(nil, 3, 0)
			if bf16 {
				w, err = b.WeightBF16(nil, 3, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			y := mustF32(t, b, refmath.NaNs(6), 2, 3)
			b.Linear(y, x, w, mustF32(t, b, []float32{1, 2, 3}), 2)
			got := mustRead(t, b, y)
			for i, v := range got {
				if v != float32(i%3+1) {
					t.Fatalf("bf16=%v: got %v, want the bias in each row", bf16, got)
				}
			}
		}
	})
}
