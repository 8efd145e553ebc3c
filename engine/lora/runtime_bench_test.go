package lora_test

import (
	"fmt"
	"testing"
	"time"

	"kleinbild/engine/lora"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// BenchmarkRuntimeOverhead times one bf16 linear layer of klein-4B's sizes over 768 tokens
// (a 256² image with the 512 text tokens) and the rank-32 adapter term Runtime.Add puts on
// it, each the fastest of five runs (steadier than means on a shared machine), and reports
// the term's cost relative to the layer. Run: go test ./engine/lora -run '^$' -bench
// RuntimeOverhead -benchtime=1x.
func BenchmarkRuntimeOverhead(b *testing.B) {
	for _, sh := range [][2]int{{3072, 3072}, {18432, 3072}, {3072, 9216}} {
		b.Run(fmt.Sprintf("%dx%d", sh[0], sh[1]), func(b *testing.B) {
			benchOverhead(b, 768, sh[0], sh[1], 32)
		})
	}
}

func benchOverhead(b *testing.B, rows, out, in, rank int) {
	be := backends.Default()
	defer be.Close()
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i%13-6) * 0.01
		}
		return v
	}
	bits := make([]uint16, out*in)
	for i := range bits {
		bits[i] = 0x3c00 + uint16(i%7)
	}
	held := &gpu.Held{B: be}
	defer held.Free()
	w := held.Keep(be.WeightBF16(bits, out, in))
	x := held.Keep(gpu.FromHost(be, fill(rows*in), rows, in))
	y := held.Keep(be.Alloc(gpu.F32, rows, out))
	if held.Err != nil {
		b.Fatal(held.Err)
	}
	a := &lora.Adapter{Path: "bench", Terms: []lora.Term{{Module: "m", Kind: lora.LoRA, Out: out, In: in, Rank: rank, Scale: 1,
		A: lora.Matrix{Rows: rank, Cols: in, Data: fill(rank * in)}, B: lora.Matrix{Rows: out, Cols: rank, Data: fill(out * rank)}}}}
	r := lora.NewRuntime(be, lora.Transformer)
	defer r.Close()
	if err := r.Set(lora.Stack{{Adapter: a, Strength: 1}}, lora.Layers{"m": {out, in}}); err != nil {
		b.Fatal(err)
	}
	if err := r.Prepare(rows); err != nil {
		b.Fatal(err)
	}
	fastest := func(f func()) time.Duration {
		best := time.Duration(1<<63 - 1)
		for range 5 {
			t0 := time.Now()
			f()
			if err := be.Sync(); err != nil {
				b.Fatal(err)
			}
			best = min(best, time.Since(t0))
		}
		return best
	}
	var base, term time.Duration
	for b.Loop() {
		base = fastest(func() { be.Linear(y, x, w, gpu.Tensor{}, rows) })
		term = fastest(func() { r.Add(y, x, rows, "m") })
	}
	b.ReportMetric(base.Seconds()*1e3, "ms/layer")
	b.ReportMetric(term.Seconds()*1e3, "ms/term")
	b.ReportMetric(100*term.Seconds()/base.Seconds(), "%overhead")
}
