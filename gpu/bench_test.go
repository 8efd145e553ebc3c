package gpu

// Benchmarks on the model's real shapes, per backend, reporting GFLOP/s. For example
//
//	go test ./gpu/ -run '^$' -bench 'Linear/openblas|Attention/openblas' -benchtime 3x
//
// (purego takes seconds per product; onednn, where available, runs the bf16 rows on oneDNN). Measured numbers and what was learnt from them are in the
// package documentation (doc.go, "Speed notes").

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemmShapes are rows × in → out products of the real models, plus a square reference.
var gemmShapes = []struct {
	name          string
	rows, in, out int
}{
	{"flux-mlp-768x3072x9216", 768, 3072, 9216},  // FLUX.2 klein-4B double block MLP in, 768 tokens
	{"qwen3-mlp-512x2560x9728", 512, 2560, 9728}, // Qwen3-4B gate/up projection, 512 tokens
	{"square-2048", 2048, 2048, 2048},
}

func benchRand(n int) []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func reportGFLOPs(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkLinear: y = x·Wᵀ with W stored [out, in] (PyTorch layout) as float32 and as bf16.
func BenchmarkLinear(b *testing.B) {
	for _, sh := range gemmShapes {
		x := benchRand(sh.rows * sh.in)
		wf := benchRand(sh.out * sh.in)
		wb := make([]uint16, len(wf))
		for i, v := range wf {
			wb[i] = roundBF16(v)
		}
		y := make([]float32, sh.rows*sh.out)
		flops := 2 * float64(sh.rows) * float64(sh.in) * float64(sh.out)
		for _, d := range benchDevices(b) {
			for _, kind := range []string{"f32", "bf16"} {
				w := Weight{Out: sh.out, In: sh.in, F32: wf}
				if kind == "bf16" {
					w = Weight{Out: sh.out, In: sh.in, BF16: wb}
				}
				b.Run(fmt.Sprintf("%s/%s/%s", d.Name(), kind, sh.name), func(b *testing.B) {
					d.Linear(y, x, sh.rows, w, nil) // warm-up: thread pools, scratch buffers
					b.ResetTimer()
					for b.Loop() {
						d.Linear(y, x, sh.rows, w, nil)
					}
					reportGFLOPs(b, flops)
				})
			}
		}
	}
}

// BenchmarkSgemmNN: plain row-major C = A·B on the same shapes (B stored [in, out]).
func BenchmarkSgemmNN(b *testing.B) {
	for _, sh := range gemmShapes {
		a, bm := benchRand(sh.rows*sh.in), benchRand(sh.in*sh.out)
		c := make([]float32, sh.rows*sh.out)
		flops := 2 * float64(sh.rows) * float64(sh.in) * float64(sh.out)
		for _, d := range benchDevices(b) {
			b.Run(d.Name()+"/"+sh.name, func(b *testing.B) {
				d.Sgemm(false, false, sh.rows, sh.out, sh.in, 1, a, sh.in, bm, sh.out, 0, c, sh.out)
				b.ResetTimer()
				for b.Loop() {
					d.Sgemm(false, false, sh.rows, sh.out, sh.in, 1, a, sh.in, bm, sh.out, 0, c, sh.out)
				}
				reportGFLOPs(b, flops)
			})
		}
	}
}

// BenchmarkAttention: FLUX.2 klein-4B joint attention, 768 tokens × 24 heads × 128, packed
// q|k|v rows as the fused projection writes them; also causal (Qwen3-like masking).
func BenchmarkAttention(b *testing.B) {
	const seq, heads, dim = 768, 24, 128
	qkv := benchRand(seq * 3 * heads * dim)
	for i := range qkv {
		qkv[i] *= 0.3
	}
	out := make([]float32, seq*heads*dim)
	for _, d := range benchDevices(b) {
		for _, causal := range []bool{false, true} {
			p := AttnParams{SeqQ: seq, SeqK: seq, Heads: heads, HeadDim: dim, Causal: causal,
				QStride: 3 * heads * dim, KStride: 3 * heads * dim, VStride: 3 * heads * dim}
			flops := 4 * float64(seq) * float64(seq) * heads * dim // nominal: causal counts all keys
			b.Run(fmt.Sprintf("%s/causal=%v", d.Name(), causal), func(b *testing.B) {
				d.Attention(out, qkv, qkv[heads*dim:], qkv[2*heads*dim:], p)
				b.ResetTimer()
				for b.Loop() {
					d.Attention(out, qkv, qkv[heads*dim:], qkv[2*heads*dim:], p)
				}
				reportGFLOPs(b, flops)
			})
		}
	}
}

func benchDevices(b *testing.B) []*Device {
	var ds []*Device
	for _, name := range Backends() {
		d, err := ByName(name)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

// roundBF16 rounds to the nearest bfloat16 (ties to even), as torch's .to(bfloat16).
func roundBF16(f float32) uint16 {
	u := math.Float32bits(f)
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}
