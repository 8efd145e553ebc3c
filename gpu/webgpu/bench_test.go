//go:build cgo

package webgpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"kleinbild/gpu"
)

func openB(tb testing.TB) *Backend {
	b, err := New(Options{Adapter: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}

func randF32(r *rand.Rand, n int, std float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(std * r.NormFloat64())
	}
	return v
}

// BenchmarkLinear runs Linear at the model's shapes (rows × in → out), bf16 and f32 weights.
func BenchmarkLinear(bb *testing.B) {
	for _, s := range [][3]int{{768, 3072, 9216}, {512, 2560, 9728}, {256, 3072, 3072}} {
		for _, dt := range []gpu.DType{gpu.BF16, gpu.F32} {
			rows, in, out := s[0], s[1], s[2]
			bb.Run(fmt.Sprintf("%dx%d-%d/%s", rows, in, out, dt), func(bb *testing.B) {
				b := openB(bb)
				r := rand.New(rand.NewPCG(1, 2))
				x, err := gpu.FromHost(b, randF32(r, rows*in, 1), rows, in)
				if err != nil {
					bb.Fatal(err)
				}
				y, _ := b.Alloc(gpu.F32, rows, out)
				wf := randF32(r, out*in, 0.02)
				var w gpu.Tensor
				if dt == gpu.BF16 {
					bits := make([]uint16, len(wf))
					for i, f := range wf {
						bits[i] = uint16(f32u(f) >> 16)
					}
					w, err = b.WeightBF16(bits, out, in)
				} else {
					w, err = b.WeightF32(wf, out, in)
				}
				if err != nil {
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
	}
}

// BenchmarkAttention runs self-attention at the transformer's head dim 128.
func BenchmarkAttention(bb *testing.B) {
	for _, s := range [][2]int{{256, 8}, {1024, 24}} {
		seq, heads := s[0], s[1]
		bb.Run(fmt.Sprintf("seq%d-h%d-d128", seq, heads), func(bb *testing.B) {
			b := openB(bb)
			r := rand.New(rand.NewPCG(1, 2))
			n := seq * heads * 128
			q, _ := gpu.FromHost(b, randF32(r, n, 1))
			k, _ := gpu.FromHost(b, randF32(r, n, 1))
			v, _ := gpu.FromHost(b, randF32(r, n, 1))
			o, _ := b.Alloc(gpu.F32, n)
			p := gpu.AttnParams{SeqQ: seq, SeqK: seq, Heads: heads, HeadDim: 128}
			b.Attention(o, q, k, v, p)
			if err := b.Sync(); err != nil {
				bb.Fatal(err)
			}
			bb.ResetTimer()
			for range bb.N {
				b.Attention(o, q, k, v, p)
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
			}
			bb.ReportMetric(4*float64(seq)*float64(seq)*128*float64(heads)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
