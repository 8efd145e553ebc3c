//go:build cgo

package webgpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"kleinbild/gpu"
)

// BenchmarkGemmLinearOptions runs Linear with bf16 weights at the shapes of the Linear
// classes (the deep class's 768×9216→3072, FamilyLinear's 1536×3072→9216 and the 256²
// attention output 768×3072→3072) on the reference variant and on each variant with options
// (vec4 stores, warp tiles, double buffers, split K), side by side: GFLOP/s counts
// 2·rows·in·out, ×ref is the rate over the reference's on the same shape.
// KLEINBILD_BENCH_VARIANTS (comma-separated names) picks other variants. On a software
// adapter (lavapipe) the rates say nothing of a GPU's: the tuner picks on the user's card.
func BenchmarkGemmLinearOptions(bb *testing.B) {
	b := openB(bb)
	vs := append([]string{b.Variants(FamilyLinear)[0]}, optionVariants(b)...)
	if env := os.Getenv("KLEINBILD_BENCH_VARIANTS"); env != "" && env != "all" {
		vs = strings.Split(env, ",")
	}
	kind := b.Info().Kind
	if kind == gpu.KindSoftware {
		bb.Logf("%s is a software adapter: its rates are no guide to a GPU's", b.Info().Name)
	}
	for _, s := range [][3]int{{768, 9216, 3072}, {1536, 3072, 9216}, {768, 3072, 3072}} {
		rows, in, out := s[0], s[1], s[2]
		r := rand.New(rand.NewPCG(1, 2))
		x, err := gpu.FromHost(b, randF32(r, rows*in, 1), rows, in)
		if err != nil {
			bb.Fatal(err)
		}
		y, _ := b.Alloc(gpu.F32, rows, out)
		wf := randF32(r, out*in, 0.02)
		bits := make([]uint16, len(wf))
		for i, f := range wf {
			bits[i] = uint16(f32u(f) >> 16)
		}
		w, err := b.WeightBF16(bits, out, in)
		if err != nil {
			bb.Fatal(err)
		}
		var ref float64
		for i, v := range vs {
			bb.Run(fmt.Sprintf("%s/%dx%d-%d/%s", kind, rows, in, out, v), func(bb *testing.B) {
				if err := b.SetVariant(FamilyLinear, v); err != nil {
					bb.Fatal(err)
				}
				b.Linear(y, x, w, gpu.Tensor{}, rows)
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.ResetTimer()
				for range bb.N {
					b.Linear(y, x, w, gpu.Tensor{}, rows)
					if err := b.Sync(); err != nil {
						bb.Fatal(err)
					}
				}
				rate := 2 * float64(rows) * float64(in) * float64(out) * float64(bb.N) / bb.Elapsed().Seconds() / 1e9
				bb.ReportMetric(rate, "GFLOP/s")
				if i == 0 {
					ref = rate
				}
				if ref > 0 {
					bb.ReportMetric(rate/ref, "×ref")
				}
			})
		}
		for _, t := range []gpu.Tensor{x, y, w} {
			b.Free(t)
		}
	}
}
