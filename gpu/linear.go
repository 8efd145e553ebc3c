package gpu

// bf16Tile is how many weight rows are converted to float32 at a time for backends without
// native bf16: big enough for an efficient GEMM, small enough to stay in cache.
const bf16Tile = 256

// Linear computes y[rows, w.Out] = x[rows, w.In]·Wᵀ (+ bias if non-nil), as torch.nn.Linear.
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
		// Convert a tile of weight rows at a time and multiply into the matching columns of y.
		tile := make([]float32, bf16Tile*w.In)
		for o := 0; o < w.Out; o += bf16Tile {
			n := min(bf16Tile, w.Out-o)
			src := w.BF16[o*w.In : (o+n)*w.In]
			dst := tile[:n*w.In]
			d.Parallel(n, func(lo, hi int) {
				for i := lo * w.In; i < hi*w.In; i++ {
					dst[i] = bf16(src[i])
				}
			})
			d.backend.Sgemm(false, true, rows, n, w.In, 1, x, w.In, dst, w.In, 0, y[o:], w.Out)
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
