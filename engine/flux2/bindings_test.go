//go:build cgo

package flux2

import (
	"context"
	"path/filepath"
	"testing"

	"kleinbild/gpu/webgpu/webgputest"
	"kleinbild/weights/golden"
)

// inPlaceOps are the ops of Forward whose inputs may share a buffer with their output: they
// work in place by design. HeadRMSNorm normalises q and k where they lie; SiLU applies to the
// timestep MLP's hidden state in place.
var inPlaceOps = map[string]bool{"HeadRMSNorm": true, "SiLU": true}

// TestReadOnlyInputBindings runs a forward of the tiny model on WebGPU and checks that every
// input of every other dispatch (Linear, Attention, the norms, SwiGLU, the residual adds) is
// bound read-only: a device sees NonWritable operands only when the activations that a
// kernel reads lie in buffers other than the one it writes.
func TestReadOnlyInputBindings(t *testing.T) {
	b := webgputest.Open(t)
	m, err := Load(filepath.Join(golden.TinyModel(t), "transformer"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gc := readCase(t, goldenCases(t)[0])

	var out []float32
	recs := webgputest.Trace(b, func() { out, err = m.ForwardHost(context.Background(), gc.in, nil) })
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "output", out, gc.output, outputTol)

	webgputest.CheckReadOnly(t, recs, inPlaceOps, "Linear", "Attention", "LayerNorm", "SwiGLU", "GatedAdd")
}
