//go:build cgo

package webgpu

import (
	"testing"

	"kleinbild/gpu"
)

// TestProfile: with StartProfile every dispatch is timed on the GPU and summed per op; a
// second TakeProfile starts over, and StopProfile leaves the backend working as before.
func TestProfile(t *testing.T) {
	b := open(t)
	if !b.timestamps {
		if err := b.StartProfile(); err == nil {
			t.Fatal("StartProfile without timestamp queries succeeded")
		}
		t.Skip("no timestamp queries on this adapter")
	}
	if _, err := b.TakeProfile(); err == nil {
		t.Error("TakeProfile before StartProfile succeeded")
	}
	if err := b.StartProfile(); err != nil {
		t.Fatal(err)
	}
	x, _ := gpu.FromHost(b, make([]float32, 64*96), 64, 96)
	w, _ := b.WeightF32(make([]float32, 80*96), 80, 96)
	y, _ := b.Alloc(gpu.F32, 64, 80)
	q, _ := gpu.FromHost(b, make([]float32, 40*64), 40, 64)
	o, _ := b.Alloc(gpu.F32, 40, 64)
	defer func() {
		for _, tt := range []gpu.Tensor{x, w, y, q, o} {
			b.Free(tt)
		}
	}()
	for range 3 {
		b.Linear(y, x, w, gpu.Tensor{}, 64)
	}
	b.Attention(o, q, q, q, gpu.AttnParams{SeqQ: 40, SeqK: 40, Heads: 2, HeadDim: 32})
	prof, err := b.TakeProfile()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", prof)
	got := map[string]OpTime{}
	for _, p := range prof {
		got[p.Op] = p
	}
	if l := got["Linear"]; l.Dispatches < 3 || l.Seconds <= 0 {
		t.Errorf("Linear: %+v, want 3 or more timed dispatches", l)
	}
	if a := got["Attention"]; a.Dispatches < 1 || a.Seconds <= 0 {
		t.Errorf("Attention: %+v", a)
	}
	if again, err := b.TakeProfile(); err != nil || len(again) != 0 {
		t.Errorf("second TakeProfile: %+v, %v; want nothing", again, err)
	}
	b.StopProfile()
	b.Linear(y, x, w, gpu.Tensor{}, 64)
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}
