//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"testing"

	"kleinbild/gpu"
)

// The profiling methods bench --profile looks for (bench's profiler interface).
var _ interface {
	StartProfile() error
	TakeProfile() ([]gpu.OpTime, error)
	StopProfile()
} = (*Backend)(nil)

// TestProfile: with StartProfile every dispatch is timed on the device and summed per op,
// also across batches; a second TakeProfile starts over, and StopProfile leaves the backend
// working as before.
func TestProfile(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	defer b.Close()
	if _, err := b.TakeProfile(); err == nil {
		t.Error("TakeProfile before StartProfile succeeded")
	}
	if err := b.StartProfile(); err != nil {
		if timestampBits(b.f, b.pd.handle) == 0 {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	x, _ := gpu.FromHost(b, make([]float32, 64*96), 64, 96)
	w, _ := b.WeightF32(make([]float32, 96), 96)
	y, _ := b.Alloc(gpu.F32, 64, 96)
	q, _ := gpu.FromHost(b, make([]float32, 40*64), 40, 64)
	o, _ := b.Alloc(gpu.F32, 40, 64)
	defer func() {
		for _, tt := range []gpu.Tensor{x, w, y, q, o} {
			b.Free(tt)
		}
	}()
	const norms = maxCommands + 10 // more than one batch holds
	for range norms {
		b.RMSNorm(y, x, w, 64, 96, 1e-6)
	}
	b.Attention(o, q, q, q, gpu.AttnParams{SeqQ: 40, SeqK: 40, Heads: 2, HeadDim: 32})
	prof, err := b.TakeProfile()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", prof)
	got := map[string]gpu.OpTime{}
	for _, p := range prof {
		got[p.Op] = p
	}
	if n := got["RMSNorm"]; n.Dispatches != norms || n.Seconds <= 0 {
		t.Errorf("RMSNorm: %+v, want %d timed dispatches", n, norms)
	}
	if a := got["Attention"]; a.Dispatches != 1 || a.Seconds <= 0 {
		t.Errorf("Attention: %+v, want 1 timed dispatch", a)
	}
	if len(prof) != 2 || prof[0].Seconds < prof[1].Seconds {
		t.Errorf("profile %+v: want RMSNorm and Attention, longest first", prof)
	}
	b.Attention(o, q, q, q, gpu.AttnParams{SeqQ: 40, SeqK: 40, Heads: 2, HeadDim: 32})
	if again, err := b.TakeProfile(); err != nil || len(again) != 1 || again[0].Dispatches != 1 {
		t.Errorf("second TakeProfile: %+v, %v; want the one Attention since the first", again, err)
	}
	b.StopProfile()
	b.RMSNorm(y, x, w, 64, 96, 1e-6)
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}
