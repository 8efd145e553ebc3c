package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"kleinbild/gpu"
	"kleinbild/weights"
)

// GEMMPeak is the matrix-product rate the device reaches on one of the model's real shapes,
// measured in the same process as the generations it is compared with.
type GEMMPeak struct {
	// M, K, N: A[M, K]·B[K, N]; the FLUX.2 klein-4B MLP input projection over 768 tokens.
	M int `json:"m"`
	K int `json:"k"`
	N int `json:"n"`
	// SgemmGFLOPS: float32 Sgemm with B stored [K, N]; LinearBF16GFLOPS: Device.Linear with a
	// bf16 weight stored [N, K] (PyTorch layout, the model's case). Best of the timed runs.
	SgemmGFLOPS      float64 `json:"sgemm_gflops"`
	LinearBF16GFLOPS float64 `json:"linear_bf16_gflops"`
}

// measurePeak times each product once to warm up and then reps times, keeping the best.
func measurePeak(ctx context.Context, dev *gpu.Device, reps int) (GEMMPeak, error) {
	p := GEMMPeak{M: 768, K: 3072, N: 9216}
	r := rand.New(rand.NewPCG(1, 2))
	randn := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64() * scale)
		}
		return v
	}
	a := randn(p.M*p.K, 1)
	b := randn(p.K*p.N, 1/math.Sqrt(float64(p.K)))
	c := make([]float32, p.M*p.N)
	flops := 2 * float64(p.M) * float64(p.K) * float64(p.N)

	best := func(run func()) (float64, error) {
		run()
		var fastest time.Duration
		for i := 0; i < reps; i++ {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t := time.Now()
			run()
			if d := time.Since(t); fastest == 0 || d < fastest {
				fastest = d
			}
		}
		return flops / fastest.Seconds() / 1e9, nil
	}
	var err error
	if p.SgemmGFLOPS, err = best(func() {
		dev.Sgemm(false, false, p.M, p.N, p.K, 1, a, p.K, b, p.N, 0, c, p.N)
	}); err != nil {
		return p, err
	}
	wb := make([]uint16, p.N*p.K) // B as a bf16 [N, K] weight; the values do not matter
	weights.F32ToBF16(wb, b)
	w := gpu.Weight{Out: p.N, In: p.K, BF16: wb}
	if p.LinearBF16GFLOPS, err = best(func() { dev.Linear(c, a, p.M, w, nil) }); err != nil {
		return p, err
	}
	return p, nil
}
