package gpu

import (
	"runtime"
	"testing"
)

// bytesPerRun returns the average heap bytes allocated by fn after one warm-up call.
func bytesPerRun(n int, fn func()) uint64 {
	fn()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	for i := 0; i < n; i++ {
		fn()
	}
	runtime.ReadMemStats(&b)
	return (b.TotalAlloc - a.TotalAlloc) / uint64(n)
}

// TestScratchReuse: the kernels with large scratch buffers (bf16 weight tiles, score tiles,
// im2col tiles, widened kernels) take them from the Device's pools, so repeated calls allocate
// only small change (goroutine closures; gonum's own per-call blocks with purego), far below
// the scratch sizes (Linear 512 KiB, Attention 150 KiB, Conv2D 2.3 MiB).
func TestScratchReuse(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers at random under the race detector")
	}
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := newRand(t)
		x := randn(r, 64*512, 0)
		wb, _ := randBF16(r, 1000*512, 0.05)
		y := make([]float32, 64*1000)
		lin := bytesPerRun(10, func() { d.Linear(y, x, 64, Weight{Out: 1000, In: 512, BF16: wb}, nil) })

		q := randn(r, 300*256, 0)
		out := make([]float32, 300*256)
		p := AttnParams{SeqQ: 300, SeqK: 300, Heads: 2, HeadDim: 128}
		attn := bytesPerRun(10, func() { d.Attention(out, q, q, q, p) })

		in := randn(r, 16*64*64, 0)
		cw, _ := randBF16(r, 32*16*9, 0.1)
		co := make([]float32, 32*64*64)
		cp := ConvParams{InC: 16, InH: 64, InW: 64, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}
		conv := bytesPerRun(10, func() { d.Conv2D(co, in, Weight{Out: 32, In: 144, BF16: cw}, nil, cp) })

		t.Logf("heap bytes per call: Linear %d, Attention %d, Conv2D %d", lin, attn, conv)
		if lin > 160<<10 || attn > 64<<10 || conv > 768<<10 {
			t.Errorf("scratch buffers are not reused: Linear %d, Attention %d, Conv2D %d bytes per call", lin, attn, conv)
		}
	})
}
