package qwen3

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/weights/golden"
)

// countingBLAS counts the products of a CPU backend and cancels a context at product n.
type countingBLAS struct {
	cpu.BLAS
	calls  atomic.Int64
	n      int64
	cancel context.CancelFunc
}

func (c *countingBLAS) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	if c.calls.Add(1) == c.n {
		c.cancel()
	}
	c.BLAS.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

// TestEncodeCancelInsideLayer: a cancel in the middle of a decoder layer stops the
// products there (on a CPU backend, gpu.Interrupt), rather than at the end of the layer:
// a full pass runs many products per layer, and none may follow the cancelling one beyond
// the few the cancel takes to arrive.
func TestEncodeCancelInsideLayer(t *testing.T) {
	ids, mask := promptInputs(t, 0)
	open := func(blas cpu.BLAS) *Encoder {
		e, err := Load(filepath.Join(golden.TinyModel(t), "text_encoder"), cpu.New(blas))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		return e
	}
	full := &countingBLAS{BLAS: purego.New()}
	if _, err := open(full).Encode(context.Background(), ids, mask, []int{1}, nil); err != nil {
		t.Fatal(err)
	}
	perLayer := full.calls.Load()
	if perLayer < 6 {
		t.Fatalf("one decoder layer ran %d products; the test needs several", perLayer)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := &countingBLAS{BLAS: purego.New(), n: 2, cancel: cancel}
	_, err := open(cut).Encode(ctx, ids, mask, DefaultLayers, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := cut.calls.Load(); got >= perLayer {
		t.Errorf("%d products ran after a cancel at product 2 of the first layer's %d", got, perLayer)
	}
	t.Logf("cancelled at product 2 of %d per layer: %d ran; %v", perLayer, cut.calls.Load(), err)
}
