package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
)

// TestLinearManyTiles: a Linear whose weight spans several row tiles (bf16TileRows: 256, 256
// and 88 rows here; 512 and 88 for oneDNN's bf16 tiles) puts each tile's product in its own
// columns of y, for f32 weights (copied
// per tile), bf16 ones (widened per tile, or copied per tile for oneDNN's native product) and
// every provider. Compared per tile with a float64 product of the same weights: rel-L2 ≤ 1e-5
// and max abs ≤ 1e-4 for the f32 products; rel-L2 ≤ 1e-2 and max abs ≤ 0.05 where oneDNN
// rounds the activations to bf16 (package onednn).
func TestLinearManyTiles(t *testing.T) {
	const rows, in, out = 2, 32768, 600
	if tr := bf16TileRows(in, out); tr != 256 {
		t.Fatalf("tile rows %d: the shape no longer spans several tiles", tr)
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, rows*in)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	wf := make([]float32, out*in)
	wb := make([]uint16, out*in)
	for i := range wf {
		wb[i] = roundBF16(float32(r.NormFloat64() / math.Sqrt(in)))
		wf[i] = math.Float32frombits(uint32(wb[i]) << 16) // the same values as both types
	}
	want := make([]float64, rows*out)
	for i := range rows {
		for o := range out {
			var s float64
			for k, wv := range wf[o*in : (o+1)*in] {
				s += float64(x[i*in+k]) * float64(wv)
			}
			want[i*out+o] = s
		}
	}
	forEachBackend(t, func(t *testing.T, b *Backend) {
		xt := mustF32(t, b, x, rows, in)
		for _, bf := range []bool{false, true} {
			w, err := b.WeightF32(wf, out, in)
			relTol, absTol := 1e-5, 1e-4
			if bf {
				w, err = b.WeightBF16(wb, out, in)
				if b.bf16 != nil {
					relTol, absTol = 1e-2, 0.05
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			y := mustAlloc(t, b, rows, out)
			b.Linear(y, xt, w, gpu.Tensor{}, rows)
			got := mustRead(t, b, y)
			for lo := 0; lo < out; lo += 256 {
				hi := min(lo+256, out)
				var num, den, maxAbs float64
				for i := range rows {
					for o := lo; o < hi; o++ {
						d := float64(got[i*out+o]) - want[i*out+o]
						num += d * d
						den += want[i*out+o] * want[i*out+o]
						maxAbs = max(maxAbs, math.Abs(d))
					}
				}
				if rel := math.Sqrt(num / den); rel > relTol || maxAbs > absTol {
					t.Errorf("bf16 %v, columns [%d,%d): rel-L2 %.3g (≤ %g), max abs %.3g (≤ %g)", bf, lo, hi, rel, relTol, maxAbs, absTol)
				}
			}
			b.Free(y)
			b.Free(w)
		}
		b.Free(xt)
	})
}
