package flux2

import (
	"context"
	"path/filepath"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/gpu/gputest"
	"kleinbild/weights/golden"
)

// TestActivationsKept: Forward allocates its activation tensors once, ForwardActivations
// values in all, and keeps them for the next call of the same size (only ForwardHost's own
// input and output tensors are new); a call with more tokens reallocates them, one with
// fewer reuses them, and Release frees them, leaving only the weights resident.
func TestActivationsKept(t *testing.T) {
	b := &gputest.Counting{Backend: backends.DefaultCPU()}
	m, err := Load(filepath.Join(golden.TinyModel(t), "transformer"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	weights := b.Memory().Resident
	tokens := func(gc goldenCase) int { return (len(gc.in.ImgIDs) + len(gc.in.TxtIDs)) / idCols }
	paths := goldenCases(t)
	small, large := readCase(t, paths[0]), readCase(t, paths[0])
	for _, p := range paths {
		gc := readCase(t, p)
		if n := tokens(gc); n < tokens(small) {
			small = gc
		} else if n > tokens(large) {
			large = gc
		}
	}
	if tokens(small) == tokens(large) {
		t.Fatal("the golden cases all have one size")
	}
	run := func(gc goldenCase, wantAllocs int, wantResident int64, what string) {
		t.Helper()
		before := b.Tensors
		if _, err := m.ForwardHost(context.Background(), gc.in, nil); err != nil {
			t.Fatal(err)
		}
		if got := b.Tensors - before; got != wantAllocs {
			t.Errorf("%s: %d tensors allocated, want %d", what, got, wantAllocs)
		}
		if got := b.Memory().Resident - weights; got != wantResident {
			t.Errorf("%s: %d bytes of activations resident, want %d", what, got, wantResident)
		}
	}
	io := 3 // ForwardHost's image, text and output tensors
	if len(small.in.TxtIDs) == 0 {
		io = 2
	}
	smallBytes := 4 * int64(m.cfg.ForwardActivations(tokens(small)))
	largeBytes := 4 * int64(m.cfg.ForwardActivations(tokens(large)))
	run(small, io+numBuffers, smallBytes, "first call")
	run(small, io, smallBytes, "same size again")
	ioLarge := 3
	if len(large.in.TxtIDs) == 0 {
		ioLarge = 2
	}
	// The five per-call vectors (timestep embedding, MLP, modulations) keep their size: only
	// the tensors that grow with the tokens are new.
	run(large, ioLarge+numBuffers-5, largeBytes, "more tokens")
	run(small, io, largeBytes, "fewer tokens")
	m.Release()
	if got := b.Memory().Resident; got != weights {
		t.Errorf("after Release: %d bytes resident, want the weights' %d", got, weights)
	}
}
