//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"testing"

	"kleinbild/gpu"
)

// BenchmarkLinear times a 512×3072·3072×3072 product on bf16 weights with each tile of the
// exact precision and in the fast one (fast: the matrix units, or on a device without them
// the twin kernel).
func BenchmarkLinear(bm *testing.B) {
	b, err := open(Options{Device: -1})
	if err != nil {
		bm.Skip(err)
	}
	defer b.Close()
	const rows, in, out = 512, 3072, 3072
	x, _ := gpu.FromHost(b, make([]float32, rows*in), rows, in)
	w, _ := b.WeightBF16(make([]uint16, out*in), out, in)
	y, _ := b.Alloc(gpu.F32, rows, out)
	for _, tile := range []int{64, 128, 0} {
		name := fmt.Sprintf("t%d", tile)
		if tile == 0 {
			name = "fast"
		}
		bm.Run(name, func(bm *testing.B) {
			b.linearTile = tile
			b.fast = tile == 0
			for range bm.N {
				b.Linear(y, x, w, gpu.Tensor{}, rows)
				if err := b.Sync(); err != nil {
					bm.Fatal(err)
				}
			}
			bm.ReportMetric(2*rows*in*out*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
