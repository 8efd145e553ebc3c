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
// denoising phase and their ratio, and the same for the process's CPU time over the
// denoising blocks (from the first block's report to the last; where the platform reports
// it), which a machine shared with other work disturbs less than wall time. Run it as
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
	run := func(strength float32) (wall, cpu float64) {
		st := lora.Stack{{Adapter: a, Strength: strength}}
		var cpu0, cpu1 float64
		progress := func(p Progress) {
			if p.Phase != PhaseDenoise {
				return
			}
			if cpu0 == 0 {
				cpu0 = processCPUSeconds()
			}
			if p.Block == p.Blocks {
				cpu1 = processCPUSeconds()
			}
		}
		res, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "a red cube on a blue table", Width: 256, Height: 256, Steps: 1, Seed: 1}, Adapters: st}, progress)
		if err != nil {
			b.Fatal(err)
		}
		return res.Timings[PhaseDenoise].Seconds(), cpu1 - cpu0
	}
	run(1) // maps the weights, fits the adapter and encodes the prompt once
	var without, with, cpuWithout, cpuWith []float64
	b.ResetTimer()
	for range b.N {
		w0, c0 := run(0)
		w1, c1 := run(1)
		without, with = append(without, w0), append(with, w1)
		cpuWithout, cpuWith = append(cpuWithout, c0), append(cpuWith, c1)
		b.Logf("denoising step: %.2f s without, %.2f s with the adapter (CPU %.2f s, %.2f s)", w0, w1, c0, c1)
	}
	b.ReportMetric(median(without), "s/step-without")
	b.ReportMetric(median(with), "s/step-with")
	b.ReportMetric(median(with)/median(without), "ratio")
	if median(cpuWithout) > 0 {
		b.ReportMetric(median(cpuWith)/median(cpuWithout), "cpu-ratio")
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
