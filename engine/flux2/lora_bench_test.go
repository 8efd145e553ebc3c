package flux2

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"kleinbild/engine/lora"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// BenchmarkForwardLoRARank32 measures the run-time adapter's cost side by side: at klein-4B
// width (benchConfig: 1 double + 1 single block, 512 text + 256 image tokens: a 256² image) each iteration
// runs Forwards with a rank-32 LoRA on every linear layer at strength 0 (nothing applied)
// and at strength 1 in the order 0, 1, 1, 0 (so that a drift of the machine's speed cancels)
// and reports both mean and fastest times and the overhead of each (the fastest is the
// steadier figure on a shared machine). Run briefly:
// go test ./engine/flux2 -run '^$' -bench LoRARank32 -benchtime=2x.
func BenchmarkForwardLoRARank32(b *testing.B) {
	dir := b.TempDir()
	cfg := writeRandomModel(b, dir, benchConfig)
	m, err := Load(dir, backends.Default())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	randm := func(rows, cols int, amp float64) lora.Matrix {
		v := make([]float32, rows*cols)
		for i := range v {
			v[i] = float32(amp * rng.NormFloat64())
		}
		return lora.Matrix{Rows: rows, Cols: cols, Data: v}
	}
	const rank = 32
	a := &lora.Adapter{Path: "random-r32"}
	for mod, sh := range m.Layers() {
		a.Terms = append(a.Terms, lora.Term{Module: mod, Component: lora.Transformer, Key: mod, Kind: lora.LoRA,
			Out: sh[0], In: sh[1], Rank: rank, Scale: 1, A: randm(rank, sh[1], 0.01), B: randm(sh[0], rank, 0.01)})
	}

	const l, n = 512, 256
	randn := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	be := m.b
	img, err := gpu.FromHost(be, randn(n*cfg.InChannels), n, cfg.InChannels)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(img)
	txt, err := gpu.FromHost(be, randn(l*cfg.JointAttentionDim), l, cfg.JointAttentionDim)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(txt)
	out, err := be.Alloc(gpu.F32, n, cfg.OutChannels)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(out)
	in := Input{Img: img, ImgIDs: ImageIDs(16, 16, 0), Txt: txt, TxtIDs: TextIDs(l), Timestep: 0.75}
	forward := func(strength float32) time.Duration {
		if err := m.SetAdapters(lora.Stack{{Adapter: a, Strength: strength}}); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		err := m.Forward(context.Background(), in, out, nil)
		if err == nil {
			err = be.Sync()
		}
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	forward(1) // warm-up: uploads the factors, allocates the scratch
	var plain, adapted time.Duration
	minPlain, minAdapted := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range []float32{0, 1, 1, 0} {
			d := forward(s)
			if s == 0 {
				plain += d
				minPlain = min(minPlain, d)
			} else {
				adapted += d
				minAdapted = min(minAdapted, d)
			}
		}
	}
	b.ReportMetric(plain.Seconds()*1e3/float64(2*b.N), "ms/forward")
	b.ReportMetric(adapted.Seconds()*1e3/float64(2*b.N), "ms/forward-lora")
	b.ReportMetric(100*(adapted.Seconds()/plain.Seconds()-1), "%overhead")
	b.ReportMetric(minPlain.Seconds()*1e3, "ms/forward-min")
	b.ReportMetric(minAdapted.Seconds()*1e3, "ms/forward-lora-min")
	b.ReportMetric(100*(minAdapted.Seconds()/minPlain.Seconds()-1), "%overhead-min")
}
