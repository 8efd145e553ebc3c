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

// benchVariants are the variants a benchmark runs: KLEINBILD_BENCH_VARIANTS (comma-separated
// names, "all" for every one), else the default and the first 64×64 kernel side by side.
func benchVariants(b *Backend, family string) []string {
	all := b.Variants(family)
	switch env := os.Getenv("KLEINBILD_BENCH_VARIANTS"); env {
	case "all":
		return all
	case "":
		return []string{all[0], legacyVariant}
	default:
		return strings.Split(env, ",")
	}
}

// BenchmarkGemmLinear runs Linear with bf16 weights at the models' shapes (rows × in → out):
// klein-4B at 256² (512 text + 256 image tokens) and 512² (+1024), hidden 3072, MLP 9216;
// Qwen3-4B at 512 tokens, hidden 2560, MLP 9728; one modulation row. Each variant of
// benchVariants runs; GFLOP/s counts 2·rows·in·out.
func BenchmarkGemmLinear(bb *testing.B) {
	b := openB(bb)
	shapes := [][3]int{{768, 3072, 9216}, {768, 9216, 3072}, {1536, 3072, 3072}, {512, 2560, 9728}, {512, 9728, 2560}, {1, 3072, 18432}}
	for _, s := range shapes {
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
		for _, v := range benchVariants(b, FamilyLinear) {
			bb.Run(fmt.Sprintf("%dx%d-%d/%s", rows, in, out, v), func(bb *testing.B) {
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
				bb.ReportMetric(2*float64(rows)*float64(in)*float64(out)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		for _, t := range []gpu.Tensor{x, y, w} {
			b.Free(t)
		}
	}
}

// BenchmarkGemmConv runs the VAE decoder's 3×3 convolutions (bf16 weights) at a reduced
// image size (lavapipe is too slow for 1024², where they run on 128², 256², 512² and 1024²):
// 512 channels at 32², 256 at 64², 128 at 128², and the last conv to 3 channels.
func BenchmarkGemmConv(bb *testing.B) {
	b := openB(bb)
	for _, s := range [][4]int{{512, 512, 32, 32}, {256, 256, 64, 64}, {128, 128, 128, 128}, {128, 3, 128, 128}} {
		inC, outC, h, wd := s[0], s[1], s[2], s[3]
		p := gpu.ConvParams{InC: inC, InH: h, InW: wd, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		k := p.KernelSize()
		r := rand.New(rand.NewPCG(1, 2))
		in, err := gpu.FromHost(b, randF32(r, inC*h*wd, 1))
		if err != nil {
			bb.Fatal(err)
		}
		out, _ := b.Alloc(gpu.F32, outC*h*wd)
		wf := randF32(r, outC*k, 0.02)
		bits := make([]uint16, len(wf))
		for i, f := range wf {
			bits[i] = uint16(f32u(f) >> 16)
		}
		w, err := b.WeightBF16(bits, outC, k)
		if err != nil {
			bb.Fatal(err)
		}
		for _, v := range benchVariants(b, FamilyConv) {
			bb.Run(fmt.Sprintf("%d-%d-%dx%d/%s", inC, outC, h, wd, v), func(bb *testing.B) {
				if err := b.SetVariant(FamilyConv, v); err != nil {
					bb.Fatal(err)
				}
				b.Conv2D(out, in, w, gpu.Tensor{}, p)
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.ResetTimer()
				for range bb.N {
					b.Conv2D(out, in, w, gpu.Tensor{}, p)
					if err := b.Sync(); err != nil {
						bb.Fatal(err)
					}
				}
				bb.ReportMetric(2*float64(outC)*float64(k)*float64(h*wd)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		for _, t := range []gpu.Tensor{in, out, w} {
			b.Free(t)
		}
	}
}
