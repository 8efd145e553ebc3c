package cpu

// Benchmarks on the model's real shapes through the gpu.Backend interface, per GEMM provider,
// reporting GFLOP/s. For example
//
//	go test ./gpu/cpu -run '^$' -bench 'Linear/openblas|Attention/openblas' -benchtime 3x
//
// (purego takes seconds per product; onednn, where available, runs the bf16 rows on oneDNN).
// Measured numbers and what was learnt from them are in the package documentation (doc.go,
// "Speed notes").

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
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

// benchSync fails the benchmark if the backend kept an error.
func benchSync(b *testing.B, be gpu.Backend) {
	if err := be.Sync(); err != nil {
		b.Fatal(err)
	}
}

// benchQuant returns random blocks of dtype d for n elements, with float16 scales of 2⁻⁷ at
// the given byte offsets of each block (no NaN or subnormal values to slow the product).
func benchQuant(d gpu.DType, n int, scales ...int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	be, bb := d.Block()
	raw := make([]byte, n/be*bb)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	for blk := 0; blk < len(raw); blk += bb {
		for _, o := range scales {
			raw[blk+o], raw[blk+o+1] = 0x00, 0x20
		}
	}
	return raw
}

// BenchmarkLinear: y = x·Wᵀ with W stored [out, in] (PyTorch layout) as float32, bf16 and the
// quantized types of the published GGUF files (Q8_0, Q4_K, Q6_K).
func BenchmarkLinear(b *testing.B) {
	for _, sh := range gemmShapes {
		xh := benchRand(sh.rows * sh.in)
		wf := benchRand(sh.out * sh.in)
		wb := make([]uint16, len(wf))
		for i, v := range wf {
			wb[i] = roundBF16(v)
		}
		flops := 2 * float64(sh.rows) * float64(sh.in) * float64(sh.out)
		for _, be := range testBackends() {
			x := mustF32(b, be, xh, sh.rows, sh.in)
			y := mustAlloc(b, be, sh.rows, sh.out)
			for _, kind := range []string{"f32", "bf16", "q8_0", "q4_k", "q6_k"} {
				w, err := be.WeightF32(wf, sh.out, sh.in)
				switch kind {
				case "bf16":
					w, err = be.WeightBF16(wb, sh.out, sh.in)
				case "q8_0":
					w, err = be.WeightQuant(gpu.Q8_0, benchQuant(gpu.Q8_0, sh.out*sh.in, 0), sh.out, sh.in)
				case "q4_k":
					w, err = be.WeightQuant(gpu.Q4_K, benchQuant(gpu.Q4_K, sh.out*sh.in, 0, 2), sh.out, sh.in)
				case "q6_k":
					w, err = be.WeightQuant(gpu.Q6_K, benchQuant(gpu.Q6_K, sh.out*sh.in, 208), sh.out, sh.in)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("%s/%s/%s", be.Name(), kind, sh.name), func(b *testing.B) {
					be.Linear(y, x, w, gpu.Tensor{}, sh.rows) // warm-up: thread pools, scratch buffers
					b.ResetTimer()
					for b.Loop() {
						be.Linear(y, x, w, gpu.Tensor{}, sh.rows)
					}
					benchSync(b, be)
					reportGFLOPs(b, flops)
				})
			}
			be.Free(x)
			be.Free(y)
		}
	}
}

// BenchmarkSgemmNN: plain row-major C = A·B on the same shapes (B stored [in, out]), straight
// on each GEMM provider.
func BenchmarkSgemmNN(b *testing.B) {
	for _, sh := range gemmShapes {
		a, bm := benchRand(sh.rows*sh.in), benchRand(sh.in*sh.out)
		c := make([]float32, sh.rows*sh.out)
		flops := 2 * float64(sh.rows) * float64(sh.in) * float64(sh.out)
		for _, be := range testBackends() {
			blas := be.BLAS()
			b.Run(be.Name()+"/"+sh.name, func(b *testing.B) {
				blas.Sgemm(false, false, sh.rows, sh.out, sh.in, 1, a, sh.in, bm, sh.out, 0, c, sh.out)
				b.ResetTimer()
				for b.Loop() {
					blas.Sgemm(false, false, sh.rows, sh.out, sh.in, 1, a, sh.in, bm, sh.out, 0, c, sh.out)
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
	qkvh := benchRand(seq * 3 * heads * dim)
	for i := range qkvh {
		qkvh[i] *= 0.3
	}
	for _, be := range testBackends() {
		qkv := mustF32(b, be, qkvh)
		out := mustAlloc(b, be, seq, heads*dim)
		q, k, v := qkv, qkv.From(heads*dim), qkv.From(2*heads*dim)
		for _, causal := range []bool{false, true} {
			p := gpu.AttnParams{SeqQ: seq, SeqK: seq, Heads: heads, HeadDim: dim, Causal: causal,
				QStride: 3 * heads * dim, KStride: 3 * heads * dim, VStride: 3 * heads * dim}
			flops := 4 * float64(seq) * float64(seq) * heads * dim // nominal: causal counts all keys
			b.Run(fmt.Sprintf("%s/causal=%v", be.Name(), causal), func(b *testing.B) {
				be.Attention(out, q, k, v, p)
				b.ResetTimer()
				for b.Loop() {
					be.Attention(out, q, k, v, p)
				}
				benchSync(b, be)
				reportGFLOPs(b, flops)
			})
		}
		be.Free(qkv)
		be.Free(out)
	}
}

// BenchmarkConv2D: 3×3 convolutions of the FLUX.2 VAE decoder (bf16 kernels, padding 1) at a
// 512² image's resolutions: 512 channels on 64×64 and 128 channels on 512×512 pixels.
func BenchmarkConv2D(b *testing.B) {
	shapes := []struct {
		name    string
		c, outC int
		h, w    int
	}{
		{"vae-512ch-64x64", 512, 512, 64, 64},
		{"vae-128ch-512x512", 128, 128, 512, 512},
	}
	for _, sh := range shapes {
		inh := benchRand(sh.c * sh.h * sh.w)
		wf := benchRand(sh.outC * sh.c * 9)
		wb := make([]uint16, len(wf))
		for i, v := range wf {
			wb[i] = roundBF16(v * 0.05)
		}
		p := gpu.ConvParams{InC: sh.c, InH: sh.h, InW: sh.w, KH: 3, KW: 3, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		flops := 2 * float64(sh.outC) * float64(sh.c*9) * float64(sh.h*sh.w)
		for _, be := range testBackends() {
			in := mustF32(b, be, inh)
			out := mustAlloc(b, be, sh.outC*sh.h*sh.w)
			w, err := be.WeightBF16(wb, sh.outC, sh.c*9)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(be.Name()+"/"+sh.name, func(b *testing.B) {
				be.Conv2D(out, in, w, gpu.Tensor{}, p)
				b.ResetTimer()
				for b.Loop() {
					be.Conv2D(out, in, w, gpu.Tensor{}, p)
				}
				benchSync(b, be)
				reportGFLOPs(b, flops)
			})
			be.Free(in)
			be.Free(out)
		}
	}
}

// roundBF16 rounds to the nearest bfloat16 (ties to even), as torch's .to(bfloat16).
func roundBF16(f float32) uint16 {
	u := math.Float32bits(f)
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// BenchmarkLinearCopy: Linear by a weight as it runs (each tile copied in Go before the
// product, see "Mapped weights" in doc.go) side by side with the single product on the weight
// as it is that Linear ran before, per native provider: f32 weights on every one, bf16 weights
// on oneDNN's native product. Shapes: the model's, and 64 rows (a short prompt, where the
// product is closest to memory-bound and the copy costs most).
func BenchmarkLinearCopy(b *testing.B) {
	shapes := append([]struct {
		name          string
		rows, in, out int
	}{{"flux-mlp-64x3072x9216", 64, 3072, 9216}}, gemmShapes...)
	for _, sh := range shapes {
		xh := benchRand(sh.rows * sh.in)
		wf := benchRand(sh.out * sh.in)
		wb := make([]uint16, len(wf))
		for i, v := range wf {
			wb[i] = roundBF16(v)
		}
		flops := 2 * float64(sh.rows) * float64(sh.in) * float64(sh.out)
		yh := make([]float32, sh.rows*sh.out)
		for _, p := range nativeTestProviders() {
			be := New(p)
			x := mustF32(b, be, xh, sh.rows, sh.in)
			y := mustAlloc(b, be, sh.rows, sh.out)
			for _, kind := range []string{"f32", "bf16"} {
				w, err := be.WeightF32(wf, sh.out, sh.in)
				direct := func() { p.Sgemm(false, true, sh.rows, sh.out, sh.in, 1, xh, sh.in, wf, sh.in, 0, yh, sh.out) }
				if kind == "bf16" {
					if be.bf16 == nil {
						continue // widened in Go before as now: nothing changed
					}
					w, err = be.WeightBF16(wb, sh.out, sh.in)
					direct = func() { be.bf16.MatMulBF16(yh, xh, sh.rows, sh.out, sh.in, wb, sh.out) }
				}
				if err != nil {
					b.Fatal(err)
				}
				for _, mode := range []string{"copied", "direct"} {
					op := func() { be.Linear(y, x, w, gpu.Tensor{}, sh.rows) }
					if mode == "direct" {
						op = direct
					}
					b.Run(fmt.Sprintf("%s/%s/%s/%s", be.Name(), kind, sh.name, mode), func(b *testing.B) {
						op() // warm-up: thread pools, scratch buffers
						b.ResetTimer()
						for b.Loop() {
							op()
						}
						benchSync(b, be)
						reportGFLOPs(b, flops)
					})
				}
				be.Free(w)
			}
			be.Free(x)
			be.Free(y)
		}
	}
}
