package cpu

import (
	"math"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu/purego"
)

// TestBadArguments: ops given short, foreign, freed, read-only or missing tensors, or invalid
// dimensions, record an error that the next Sync returns (and clears) instead of panicking or
// writing anything.
func TestBadArguments(t *testing.T) {
	b := New(purego.New())
	other := New(purego.New())
	x := mustF32(t, b, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := mustAlloc(t, b, 2, 2)
	short := mustAlloc(t, b, 3)
	w, err := b.WeightF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	wflat, err := b.WeightF32([]float32{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	foreign := mustAlloc(t, other, 2, 2)
	freed := mustAlloc(t, b, 2, 2)
	b.Free(freed)
	b.Free(freed) // harmless
	fakeBuf := gpu.NewTensor(&buffer{owner: b, f32: make([]float32, 2), dtype: gpu.F32}, 1, gpu.F32, 4)
	nan := float32(math.NaN())
	none := gpu.Tensor{}

	cases := []struct {
		name, want string
		op         func()
	}{
		{"short y", "y has 3 values", func() { b.Linear(short, x, w, none, 2) }},
		{"short x", "x has", func() { b.Linear(y, x.Slice(0, 5), w, none, 2) }},
		{"zero weight", "not a matrix", func() { b.Linear(y, x, none, none, 2) }},
		{"flat weight", "not a matrix", func() { b.Linear(y, x, wflat, none, 2) }},
		{"negative rows", "invalid dimensions", func() { b.Linear(y, x, w, none, -1) }},
		{"foreign y", "another backend", func() { b.Linear(foreign, x, w, none, 2) }},
		{"freed y", "freed", func() { b.Linear(freed, x, w, none, 2) }},
		{"weight as output", "read-only", func() { b.SiLU(w, x) }},
		{"view past its buffer", "does not fit", func() { b.SiLU(fakeBuf, fakeBuf) }},
		{"overlap", "overlaps", func() { b.Transpose(x.Slice(1, 5), x.Slice(0, 4), 2, 2) }},
		{"NaN scale", "invalid parameters", func() {
			b.Attention(y, x, x, x, gpu.AttnParams{SeqQ: 1, SeqK: 1, Heads: 1, HeadDim: 2, Scale: nan})
		}},
		{"causal needs square", "invalid parameters", func() {
			b.Attention(y, x, x, x, gpu.AttnParams{SeqQ: 1, SeqK: 2, Heads: 1, HeadDim: 2, Causal: true})
		}},
		{"odd head dim", "invalid dimensions", func() { b.RoPE(x, x, x, 1, 1, 3, 3, true) }},
		{"groups", "invalid dimensions", func() { b.GroupNorm(x, x, none, none, 3, 2, 2, 1e-6) }},
		{"mismatched lengths", "operand 1", func() { b.Add(y, x, y) }},
		{"odd patchify", "invalid dimensions", func() { b.Patchify(x, x.Reshape(6), 1, 3, 2) }},
		{"conv kernel", "kernel", func() { b.Conv2D(y, x, w, none, gpu.ConvParams{InC: 1, InH: 2, InW: 3, KH: 2, KW: 2}) }},
		{"huge dims", "invalid dimensions", func() { b.SwiGLU(y, x, math.MaxInt/2, 4, 0, 0) }},
		{"copy dtype", "Copy", func() { b.Copy(y, mustAlloc(t, b, 3)) }},
		{"upload length", "Upload", func() { b.Upload(y, []float32{1}) }},
		{"free foreign", "another backend", func() { b.Free(foreign) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				c.op()
			}()
			err := b.Sync()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Sync() = %v, want an error containing %q", err, c.want)
			}
			if err := b.Sync(); err != nil {
				t.Fatalf("error not cleared: second Sync() = %v", err)
			}
		})
	}
	if got := mustRead(t, b, w); got[0] != 1 || got[5] != 6 {
		t.Errorf("weight changed: %v", got)
	}

	// Only the first error is kept; Read and Flush return it too.
	b.Linear(short, x, w, none, 2)
	b.Linear(freed, x, w, none, 2)
	dst := make([]float32, 4)
	if err := b.Read(dst, y); err == nil || !strings.Contains(err.Error(), "y has 3 values") {
		t.Errorf("Read returned %v, want the first error", err)
	}
	b.SiLU(freed, freed)
	if err := b.Flush(); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("Flush returned %v", err)
	}
	if err := b.Read(make([]float32, 3), y); err == nil {
		t.Error("Read into a short slice succeeded")
	}
	if err := b.Read(make([]float32, 4), freed); err == nil {
		t.Error("Read of a freed tensor succeeded")
	}
	if err := b.Flush(); err != nil {
		t.Errorf("Flush after Read returned %v, want nil (Read clears)", err)
	}

	// Bad allocations fail at once.
	for _, shape := range [][]int{nil, {-1}, {math.MaxInt, math.MaxInt}} {
		if _, err := b.Alloc(gpu.F32, shape...); err == nil {
			t.Errorf("Alloc(%v) succeeded", shape)
		}
	}
	if _, err := b.Alloc(gpu.DType(9), 2); err == nil {
		t.Error("Alloc of an unknown dtype succeeded")
	}
	if _, err := b.WeightF32(make([]float32, 5), 2, 3); err == nil {
		t.Error("WeightF32 with a shape of another size succeeded")
	}
	if _, err := b.WeightBF16(make([]uint16, 5), 2, 3); err == nil {
		t.Error("WeightBF16 with a shape of another size succeeded")
	}
}

// TestMemory: Alloc counts in Resident and Peak, weights in Viewed, Free gives both back
// (twice is harmless) and ResetPeak lowers the peak to what is held.
func TestMemory(t *testing.T) {
	b := New(purego.New())
	if m := b.Memory(); m != (gpu.MemStats{}) {
		t.Fatalf("fresh backend holds %+v", m)
	}
	a := mustAlloc(t, b, 10, 10) // 400 bytes
	h, err := b.Alloc(gpu.BF16, 50)
	if err != nil {
		t.Fatal(err)
	}
	wf, _ := b.WeightF32(make([]float32, 30), 5, 6)
	wb, _ := b.WeightBF16(make([]uint16, 8))
	want := gpu.MemStats{Resident: 500, Peak: 500, Viewed: 136}
	if m := b.Memory(); m != want {
		t.Errorf("after allocating: %+v, want %+v", m, want)
	}
	b.Free(a)
	b.Free(a.Slice(0, 3)) // a view of a freed buffer: nothing more
	b.Free(wf)
	want = gpu.MemStats{Resident: 100, Peak: 500, Viewed: 16}
	if m := b.Memory(); m != want {
		t.Errorf("after freeing: %+v, want %+v", m, want)
	}
	b.ResetPeak()
	c := mustAlloc(t, b, 25)
	want = gpu.MemStats{Resident: 200, Peak: 200, Viewed: 16}
	if m := b.Memory(); m != want {
		t.Errorf("after ResetPeak and another Alloc: %+v, want %+v", m, want)
	}
	for _, x := range []gpu.Tensor{c, h, wb, {}} {
		b.Free(x)
	}
	if m := b.Memory(); m.Resident != 0 || m.Viewed != 0 || m.Peak != 200 {
		t.Errorf("after freeing all: %+v", m)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInfo: the CPU backend describes the host.
func TestInfo(t *testing.T) {
	for _, b := range testBackends() {
		info := b.Info()
		t.Logf("%s: %+v", b.Name(), info)
		if info.Kind != gpu.KindCPU || info.Name == "" || info.API == "" || info.API == b.Name() {
			t.Errorf("%s: Info() = %+v", b.Name(), info)
		}
		if info.MemoryBytes < 0 {
			t.Errorf("%s: MemoryBytes = %d", b.Name(), info.MemoryBytes)
		}
	}
}
