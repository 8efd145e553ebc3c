package gpu_test

import (
	"errors"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
)

// Held frees what it holds, keeps the first error, and gives the zero Tensor for a failure.
func TestHeld(t *testing.T) {
	b := cpu.New(purego.New())
	defer b.Close()
	h := gpu.Held{B: b}
	x := h.Keep(b.Alloc(gpu.F32, 1000))
	first, second := errors.New("first"), errors.New("second")
	if z := h.Keep(gpu.Tensor{}, first); !z.IsZero() {
		t.Error("a failure gave a tensor")
	}
	h.Keep(gpu.Tensor{}, second)
	y := h.Keep(b.Alloc(gpu.F32, 500))
	if h.Err != first || h.Len() != 2 || x.IsZero() || y.IsZero() {
		t.Fatalf("err %v, %d held", h.Err, h.Len())
	}
	if m := b.Memory(); m.Resident < 1500*4 {
		t.Fatalf("backend holds %d bytes before Free", m.Resident)
	}
	h.Free()
	if m := b.Memory(); m.Resident != 0 || h.Len() != 0 {
		t.Errorf("after Free: backend holds %d bytes, %d held", m.Resident, h.Len())
	}
}
