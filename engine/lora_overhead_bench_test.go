package engine

import (
	"context"
	"os"
	"slices"
	"testing"

	"kleinbild/engine/lora"
	"kleinbild/gpu/backends"
)

// BenchmarkLoRAStepOverhead measures what adapters cost a denoising step (issue 19: at rank 32
// on every linear of klein-4B, at most 5 %), side by side in one process: on the model folder
// $KLEINBILD_BENCH_MODEL (e.g. one `kleinbild randmodel` wrote) with the adapter file
// $KLEINBILD_BENCH_LORA (`kleinbild randmodel --lora`), it alternates one-step generations at
// 256² with the adapter at strength 0 (which costs nothing) and 1, after a first one that
// fits the adapter and encodes the prompt (cached from then on); changing a strength
// reloads nothing, so only the adapter's products differ. It reports the medians of the
// denoising phase and their ratio. Run it as
//
//	KLEINBILD_BENCH_MODEL=DIR KLEINBILD_BENCH_LORA=FILE go test -run '^$' -bench LoRAStepOverhead -benchtime 3x ./engine
func BenchmarkLoRAStepOverhead(b *testing.B) {
	dir, file := os.Getenv("KLEINBILD_BENCH_MODEL"), os.Getenv("KLEINBILD_BENCH_LORA")
	if dir == "" || file == "" {
		b.Skip("set KLEINBILD_BENCH_MODEL and KLEINBILD_BENCH_LORA")
	}
	be := backends.Default()
	defer be.Close()
	m, err := Open(dir, be, Options{KeepEncoder: false})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	a, err := lora.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	run := func(strength float32) float64 {
		st := lora.Stack{{Adapter: a, Strength: strength}}
		res, err := m.Generate(context.Background(), Request{Prompt: "a red cube on a blue table", WidthPx: 256, HeightPx: 256, Steps: 1, Seed: 1, Adapters: st}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return res.Timings[PhaseDenoise].Seconds()
	}
	run(1) // maps the weights, fits the adapter and encodes the prompt once
	var without, with []float64
	b.ResetTimer()
	for range b.N {
		without = append(without, run(0))
		with = append(with, run(1))
		b.Logf("denoising step: %.2f s without, %.2f s with the adapter", without[len(without)-1], with[len(with)-1])
	}
	b.ReportMetric(median(without), "s/step-without")
	b.ReportMetric(median(with), "s/step-with")
	b.ReportMetric(median(with)/median(without), "ratio")
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
