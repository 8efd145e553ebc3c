package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"kleinbild/gpu"
	"kleinbild/weights"
)

// GEMMPeak is the matrix-product rate the backend reaches on one of the model's real shapes,
// measured in the same process as the generations it is compared with.
type GEMMPeak struct {
	// M, K, N: A[M, K]·B[K, N]; the FLUX.2 klein-4B MLP input projection over 768 tokens.
	M int `json:"m"`
	K int `json:"k"`
	N int `json:"n"`
	// SgemmGFLOPS: Backend.Linear with a float32 weight (the plain f32 GEMM of the backend;
	// the field keeps the name of the Sgemm it measured before the Backend interface);
	// LinearBF16GFLOPS: Backend.Linear with a bf16 weight, the model's case. Both weights are
	// stored [N, K] (PyTorch layout). Best of the timed runs, each waited for with Sync.
	SgemmGFLOPS      float64 `json:"sgemm_gflops"`
	LinearBF16GFLOPS float64 `json:"linear_bf16_gflops"`
}

// measurePeak times each product once to warm up and then reps times, keeping the best.
func measurePeak(ctx context.Context, b gpu.Backend, reps int) (p GEMMPeak, err error) {
	p = GEMMPeak{M: 768, K: 3072, N: 9216}
	r := rand.New(rand.NewPCG(1, 2))
	randn := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * scale)
		}
		return v
	}
	wf := randn(p.N*p.K, 1/math.Sqrt(float64(p.K))) // B as an f32 [N, K] weight
	wb := make([]uint16, p.N*p.K)                   // and as bf16; the values do not matter
	weights.F32ToBF16(wb, wf)

	h := gpu.Held{B: b}
	defer h.Free()
	x := h.Keep(gpu.FromHost(b, randn(p.M*p.K, 1), p.M, p.K))
	y := h.Keep(b.Alloc(gpu.F32, p.M, p.N))
	w32 := h.Keep(b.WeightF32(wf, p.N, p.K))
	w16 := h.Keep(b.WeightBF16(wb, p.N, p.K))
	if h.Err != nil {
		return p, fmt.Errorf("GEMM peak: %w", h.Err)
	}
	flops := 2 * float64(p.M) * float64(p.K) * float64(p.N)

	best := func(w gpu.Tensor) (float64, error) {
		run := func() error {
			b.Linear(y, x, w, gpu.Tensor{}, p.M)
			return b.Sync()
		}
		if err := run(); err != nil {
			return 0, err
		}
		var fastest time.Duration
		for i := 0; i < reps; i++ {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t := time.Now()
			if err := run(); err != nil {
				return 0, err
			}
			if d := time.Since(t); fastest == 0 || d < fastest {
				fastest = d
			}
		}
		return flops / fastest.Seconds() / 1e9, nil
	}
	if p.SgemmGFLOPS, err = best(w32); err != nil {
		return p, err
	}
	if p.LinearBF16GFLOPS, err = best(w16); err != nil {
		return p, err
	}
	return p, nil
}
