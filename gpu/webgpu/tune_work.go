package webgpu

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"kleinbild/gpu"
)

// Workload is one kernel call on fixed shapes and random data, runnable on any gpu.Backend:
// tuning times the variants of a family on it, `kleinbild bench --kernels` reports its rate,
// and the device-versus-CPU comparison runs the same Linear on both.
type Workload struct {
	Name   string  // "linear 1536×3072→9216 bf16"
	Family string  // the kernel family it exercises (Families)
	FLOPs  float64 // 2 per multiply-add of the products it computes
	setup  func(b gpu.Backend, h *gpu.Held, r *rand.Rand) (run func(), out gpu.Tensor)
}

// LinearWorkload is Linear of x [rows, in] by a weight [out, in] (bf16 or f32).
func LinearWorkload(rows, in, out int, bf16 bool) Workload {
	dt := "f32"
	if bf16 {
		dt = "bf16"
	}
	return Workload{
		Name:   fmt.Sprintf("linear %d×%d→%d %s", rows, in, out, dt),
		Family: FamilyLinear,
		FLOPs:  2 * float64(rows) * float64(in) * float64(out),
		setup: func(b gpu.Backend, h *gpu.Held, r *rand.Rand) (func(), gpu.Tensor) {
			x := h.Keep(gpu.FromHost(b, randn(r, rows*in, 1), rows, in))
			wv := randn(r, out*in, 1/math.Sqrt(float64(in)))
			var w gpu.Tensor
			if bf16 {
				w = h.Keep(b.WeightBF16(toBF16(wv), out, in))
			} else {
				w = h.Keep(b.WeightF32(wv, out, in))
			}
			y := h.Keep(b.Alloc(gpu.F32, rows, out))
			return func() { b.Linear(y, x, w, gpu.Tensor{}, rows) }, y
		},
	}
}

// ConvWorkload is Conv2D of a random image by a bf16 kernel with outC output channels.
func ConvWorkload(p gpu.ConvParams, outC int) Workload {
	s := max(p.Stride, 1)
	oh := (p.InH+p.PadTop+p.PadBottom-p.KH)/s + 1
	ow := (p.InW+p.PadLeft+p.PadRight-p.KW)/s + 1
	k := p.InC * p.KH * p.KW
	return Workload{
		Name:   fmt.Sprintf("conv %dx%d %d→%d at %d×%d", p.KH, p.KW, p.InC, outC, p.InH, p.InW),
		Family: FamilyConv,
		FLOPs:  2 * float64(outC) * float64(oh*ow) * float64(k),
		setup: func(b gpu.Backend, h *gpu.Held, r *rand.Rand) (func(), gpu.Tensor) {
			in := h.Keep(gpu.FromHost(b, randn(r, p.InC*p.InH*p.InW, 1), p.InC, p.InH, p.InW))
			w := h.Keep(b.WeightBF16(toBF16(randn(r, outC*k, 1/math.Sqrt(float64(k)))), outC, k))
			out := h.Keep(b.Alloc(gpu.F32, outC, oh, ow))
			return func() { b.Conv2D(out, in, w, gpu.Tensor{}, p) }, out
		},
	}
}

// AttentionWorkload is Attention with dense rows of random q, k, v (family: attention for
// head dims up to 128, attention-512 above).
func AttentionWorkload(p gpu.AttnParams) Workload {
	fam := FamilyAttention
	if p.HeadDim > 128 {
		fam = FamilyAttention512
	}
	kvh := max(p.KVHeads, 1)
	pairs := float64(p.SeqQ) * float64(p.SeqK)
	if p.Causal {
		pairs = float64(p.SeqQ) * float64(p.SeqQ+1) / 2
	}
	name := fmt.Sprintf("attention %d×%d, %d heads (%d kv) of %d", p.SeqQ, p.SeqK, p.Heads, kvh, p.HeadDim)
	if p.Causal {
		name += ", causal"
	}
	return Workload{
		Name:   name,
		Family: fam,
		FLOPs:  4 * pairs * float64(p.Heads) * float64(p.HeadDim),
		setup: func(b gpu.Backend, h *gpu.Held, r *rand.Rand) (func(), gpu.Tensor) {
			q := h.Keep(gpu.FromHost(b, randn(r, p.SeqQ*p.Heads*p.HeadDim, 1), p.SeqQ, p.Heads*p.HeadDim))
			k := h.Keep(gpu.FromHost(b, randn(r, p.SeqK*kvh*p.HeadDim, 1), p.SeqK, kvh*p.HeadDim))
			v := h.Keep(gpu.FromHost(b, randn(r, p.SeqK*kvh*p.HeadDim, 1), p.SeqK, kvh*p.HeadDim))
			out := h.Keep(b.Alloc(gpu.F32, p.SeqQ, p.Heads*p.HeadDim))
			return func() { b.Attention(out, q, k, v, p) }, out
		},
	}
}

// Prepared is a Workload's tensors on one backend.
type Prepared struct {
	w   Workload
	b   gpu.Backend
	h   gpu.Held
	run func()
	out gpu.Tensor
}

// Prepare uploads the workload's inputs (random, seeded: the same data every time) to b.
func (w Workload) Prepare(b gpu.Backend) (*Prepared, error) {
	p := &Prepared{w: w, b: b, h: gpu.Held{B: b}}
	p.run, p.out = w.setup(b, &p.h, rand.New(rand.NewPCG(17, uint64(len(w.Name)))))
	if p.h.Err == nil {
		p.h.Err = b.Sync()
	}
	if p.h.Err != nil {
		p.h.Free()
		return nil, fmt.Errorf("%s: %w", w.Name, p.h.Err)
	}
	return p, nil
}

// Free releases the tensors.
func (p *Prepared) Free() { p.h.Free() }

// Output runs the workload once and reads its output.
func (p *Prepared) Output() ([]float32, error) {
	p.run()
	dst := make([]float32, p.out.Len())
	if err := p.b.Read(dst, p.out); err != nil {
		return nil, fmt.Errorf("%s: %w", p.w.Name, err)
	}
	return dst, nil
}

// minBatch is the least wall time of one timed batch: a workload faster than this on a
// fast GPU runs several times per batch, so that launch and Sync overhead do not set its time.
const minBatch = 20 * time.Millisecond

// batchRuns is how many runs a batch needs to last about minBatch when one run took d (1 for
// runs of minBatch or more; at most maxBatchRuns).
func batchRuns(d time.Duration) int {
	if d >= minBatch {
		return 1
	}
	return min(int(minBatch/max(d, time.Microsecond))+1, maxBatchRuns)
}

// maxBatchRuns bounds a batch's runs (the queue holds maxPending dispatches).
const maxBatchRuns = 256

// Time runs the workload once to warm up (compiling its kernels), then up to reps more
// timed batches while they stay within budget (at least one), and returns the fastest time
// per run. A batch queues the workload batchRuns times and waits once with Sync (wall
// time): a fast run is timed over many, not by its launch.
func (p *Prepared) Time(ctx context.Context, reps int, budget time.Duration) (time.Duration, error) {
	runs := 1
	once := func() (time.Duration, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t := time.Now()
		for range runs {
			p.run()
		}
		if err := p.b.Sync(); err != nil {
			return 0, fmt.Errorf("%s: %w", p.w.Name, err)
		}
		return time.Since(t) / time.Duration(runs), nil
	}
	start := time.Now()
	d, err := once()
	if err != nil {
		return 0, err
	}
	if runs = batchRuns(d); runs > 1 { // a second warm-up run is the better guide
		runs = 1
		if d, err = once(); err != nil {
			return 0, err
		}
		runs = batchRuns(d)
	}
	var best time.Duration
	for i := 0; i < max(reps, 1); i++ {
		d, err := once()
		if err != nil {
			return 0, err
		}
		if best == 0 || d < best {
			best = d
		}
		if time.Since(start)+d*time.Duration(runs) > budget {
			break
		}
	}
	return best, nil
}

// relL2 is ‖a − ref‖/‖ref‖ in float64 (+Inf for a non-finite or mismatched a).
func relL2(a, ref []float32) float64 {
	if len(a) != len(ref) {
		return math.Inf(1)
	}
	var num, den float64
	for i := range a {
		if math.IsNaN(float64(a[i])) || math.IsInf(float64(a[i]), 0) {
			return math.Inf(1)
		}
		d := float64(a[i]) - float64(ref[i])
		num += d * d
		den += float64(ref[i]) * float64(ref[i])
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

func randn(r *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * scale)
	}
	return v
}

// toBF16 rounds to bfloat16 bits (to nearest even; the values are finite).
func toBF16(v []float32) []uint16 {
	out := make([]uint16, len(v))
	for i, f := range v {
		u := math.Float32bits(f)
		out[i] = uint16((u + 0x7fff + (u>>16)&1) >> 16)
	}
	return out
}

// ModelWorkloads are the shapes tuning times each family on: klein-4B at 512² (1024 image and
// 512 text tokens, hidden 3072, 24 heads of 128, MLP 9216), and the VAE decoder at 512² (a
// 3×3 conv of 256 channels, at 128×128 to bound the time; its 4096-token one-head attention
// of dim 512). It is ScaledModelWorkloads(1).
func ModelWorkloads() map[string]Workload { return ScaledModelWorkloads(1) }

// ScaledModelWorkloads divides ModelWorkloads' token counts, widths and image sides by d (head
// dims stay): tuning on a slow device uses d > 1 to stay within its time budget.
func ScaledModelWorkloads(d int) map[string]Workload {
	d = max(d, 1)
	sc := func(n int) int { return max(n/d, 1) }
	return map[string]Workload{
		FamilyLinear: LinearWorkload(sc(1536), sc(3072), sc(9216), true),
		FamilyConv: ConvWorkload(gpu.ConvParams{InC: sc(256), InH: sc(128), InW: sc(128), KH: 3, KW: 3,
			PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}, sc(256)),
		FamilyAttention:    AttentionWorkload(gpu.AttnParams{SeqQ: sc(1536), SeqK: sc(1536), Heads: sc(24), KVHeads: sc(24), HeadDim: 128}),
		FamilyAttention512: AttentionWorkload(gpu.AttnParams{SeqQ: sc(4096), SeqK: sc(4096), Heads: 1, KVHeads: 1, HeadDim: 512}),
	}
}

// TinyWorkloads are small shapes for tests on slow (software) adapters; the sizes are odd
// so that every bounds path runs.
func TinyWorkloads() map[string]Workload {
	return map[string]Workload{
		FamilyLinear: LinearWorkload(37, 96, 70, true),
		FamilyConv: ConvWorkload(gpu.ConvParams{InC: 5, InH: 9, InW: 11, KH: 3, KW: 3,
			PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}, 6),
		FamilyAttention:    AttentionWorkload(gpu.AttnParams{SeqQ: 19, SeqK: 19, Heads: 2, KVHeads: 1, HeadDim: 32}),
		FamilyAttention512: AttentionWorkload(gpu.AttnParams{SeqQ: 9, SeqK: 9, Heads: 1, KVHeads: 1, HeadDim: 512}),
	}
}
