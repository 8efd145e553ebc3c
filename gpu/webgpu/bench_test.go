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

// randQuant returns n elements of dtype dt (Q8_0 or Q4_K) as random blocks with float16
// scales (and Q4_K's dmin) of 2⁻⁷.
func randQuant(r *rand.Rand, dt gpu.DType, n int) []byte {
	be, bb := dt.Block()
	raw := make([]byte, n/be*bb)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	for blk := 0; blk < len(raw); blk += bb {
		raw[blk], raw[blk+1] = 0, 0x20
		if dt == gpu.Q4_K {
			raw[blk+2], raw[blk+3] = 0, 0x20
		}
	}
	return raw
}

// BenchmarkLinear runs Linear at the model's shapes (rows × in → out), bf16, f32 and Q8_0
// and Q4_K weights (random blocks with float16 scales of 2⁻⁷).
func BenchmarkLinear(bb *testing.B) {
	for _, s := range [][3]int{{768, 3072, 9216}, {512, 2560, 9728}, {256, 3072, 3072}} {
		for _, dt := range []gpu.DType{gpu.BF16, gpu.F32, gpu.Q8_0, gpu.Q4_K} {
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
				if dt.Quantized() {
					w, err = b.WeightQuant(dt, randQuant(r, dt, out*in), out, in)
				} else if dt == gpu.BF16 {
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
