package cpu

import (
	"math"
	"runtime"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// bytesPerRun returns the heap bytes fn allocates per call after one warm-up call (the least
// of three averages over n calls).
func bytesPerRun(n int, fn func()) uint64 {
	fn()
	best := uint64(math.MaxUint64)
	// The least of three measurements: a garbage collection in between empties the
	// sync.Pools, and the next call then allocates its scratch again (a loaded machine
	// collects often). A kernel that never reuses its scratch allocates it in all three.
	for range 3 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		for i := 0; i < n; i++ {
			fn()
		}
		runtime.ReadMemStats(&b)
		best = min(best, (b.TotalAlloc-a.TotalAlloc)/uint64(n))
	}
	return best
}

// TestScratchReuse: the kernels with large scratch buffers (bf16 weight tiles, score tiles,
// im2col tiles, widened kernels, LayerNorm's 1+scale) take them from the Backend's pools, so
// repeated calls through the gpu.Backend methods allocate only small change (goroutine
// closures, shape copies; gonum's own per-call blocks with purego), far below the scratch
// sizes (Linear 512 KiB, Attention 150 KiB, Conv2D 2.3 MiB).
func TestScratchReuse(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers at random under the race detector")
	}
	forEachBackend(t, func(t *testing.T, b *Backend) {
		r := seededRand(t)
		x := mustF32(t, b, normals(r, 64*512, 0), 64, 512)
		wb, _ := refmath.RandBF16(r, 1000*512, 0.05)
		w, err := b.WeightBF16(wb, 1000, 512)
		if err != nil {
			t.Fatal(err)
		}
		y := mustAlloc(t, b, 64, 1000)
		lin := bytesPerRun(10, func() { b.Linear(y, x, w, gpu.Tensor{}, 64) })

		q := mustF32(t, b, normals(r, 300*256, 0))
		out := mustAlloc(t, b, 300*256)
		p := gpu.AttnParams{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 128}
		attn := bytesPerRun(10, func() { b.Attention(out, q, q, q, p) })

		in := mustF32(t, b, normals(r, 16*64*64, 0))
		cb, _ := refmath.RandBF16(r, 32*16*9, 0.1)
		cw, err := b.WeightBF16(cb, 32, 16*9)
		if err != nil {
			t.Fatal(err)
		}
		co := mustAlloc(t, b, 32*64*64)
		cp := gpu.ConvParams{InC: 16, InH: 64, InW: 64, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		conv := bytesPerRun(10, func() { b.Conv2D(co, in, cw, gpu.Tensor{}, cp) })

		ln := mustAlloc(t, b, 64, 512)
		scale := mustF32(t, b, normals(r, 512, 0))
		norm := bytesPerRun(10, func() { b.LayerNorm(ln, x, scale, scale, 64, 512, 1e-6) })

		if err := b.Sync(); err != nil {
			t.Fatal(err)
		}
		t.Logf("heap bytes per call: Linear %d, Attention %d, Conv2D %d, LayerNorm %d", lin, attn, conv, norm)
		if lin > 160<<10 || attn > 64<<10 || conv > 768<<10 || norm > 1<<10 {
			t.Errorf("scratch buffers are not reused: Linear %d, Attention %d, Conv2D %d, LayerNorm %d bytes per call", lin, attn, conv, norm)
		}
	})
}
