package gpu

import "math"

// bf16TileFloats bounds the widened weight tile of a bf16 Linear (32 MiB of float32). Each
// tile is one Sgemm, and every Sgemm call re-packs all of x: with 256-row tiles the bf16 path
// ran about 20% below f32 weights on the FLUX/Qwen shapes, with tiles of this size it runs
// within a few percent of them.
const bf16TileFloats = 8 << 20

// bf16TileRows is the number of weight rows widened per tile: as many as fit bf16TileFloats,
// a multiple of 64, at least 256.
func bf16TileRows(in, out int) int {
	rows := max(256, (bf16TileFloats/max(in, 1))&^63)
	return min(rows, out)
}

// Linear computes y[rows, w.Out] = x[rows, w.In]·Wᵀ (+ bias if non-nil), as torch.nn.Linear.
//
// BF16 weights on a backend without native bf16 are widened a tile of rows at a time (up to
// 32 MiB, see bf16TileFloats), in parallel, into a pooled buffer, and each tile is one Sgemm
// into the matching columns of y. Widening is exact, so the result matches a float64 product
// of the bf16 weights up to float32 accumulation error.
func (d *Device) Linear(y, x []float32, rows int, w Weight, bias []float32) {
	if rows == 0 || w.Out == 0 {
		return
	}
	switch {
	case w.F32 != nil:
		d.backend.Sgemm(false, true, rows, w.Out, w.In, 1, x, w.In, w.F32, w.In, 0, y, w.Out)
	case w.BF16 != nil:
		if nb, ok := d.backend.(BF16MatMuler); ok {
			nb.MatMulBF16(y, x, rows, w.Out, w.In, w.BF16)
			break
		}
		tileRows := bf16TileRows(w.In, w.Out)
		buf := d.linearTiles.get(tileRows * w.In)
		defer d.linearTiles.put(buf)
		for o := 0; o < w.Out; o += tileRows {
			n := min(tileRows, w.Out-o)
			tile := (*buf)[:n*w.In]
			d.widenParallel(tile, w.BF16[o*w.In:(o+n)*w.In])
			d.backend.Sgemm(false, true, rows, n, w.In, 1, x, w.In, tile, w.In, 0, y[o:], w.Out)
		}
	default:
		panic("gpu.Linear: weight has no data")
	}
	if bias != nil {
		d.Parallel(rows, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := y[r*w.Out : (r+1)*w.Out]
				for j, b := range bias[:w.Out] {
					row[j] += b
				}
			}
		})
	}
}

// widenParallel converts src (bfloat16 bits) into dst, split over the workers.
func (d *Device) widenParallel(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	const grain = 1 << 14 // values per task below which splitting is not worth a goroutine
	d.Parallel((len(src)+grain-1)/grain, func(lo, hi int) {
		widenBF16(dst[lo*grain:min(hi*grain, len(src))], src[lo*grain:min(hi*grain, len(src))])
	})
}

// widenBF16Go converts bfloat16 bits to float32: dst[i] = bf16(src[i]) for i < len(src).
func widenBF16Go(dst []float32, src []uint16) {
	dst = dst[:len(src)] // one bounds check for the loop
	for i, b := range src {
		dst[i] = math.Float32frombits(uint32(b) << 16)
	}
}
