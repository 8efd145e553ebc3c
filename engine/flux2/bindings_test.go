//go:build cgo

package flux2

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/gpu/webgpu"
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
	b, err := webgpu.New(webgpu.Options{Adapter: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatalf("KLEINBILD_REQUIRE_WEBGPU=1 but: %v", err)
		}
		t.Skipf("no WebGPU adapter: %v", err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}()
	m, err := Load(filepath.Join(golden.TinyModel(t), "transformer"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gc := readCase(t, goldenCases(t)[0])

	var recs []webgpu.BindingRecord
	b.TraceBindings(func(r webgpu.BindingRecord) { recs = append(recs, r) })
	out, err := m.ForwardHost(context.Background(), gc.in, nil)
	b.TraceBindings(nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "output", out, gc.output, outputTol)

	seen, bad := webgpu.ReadWriteInputs(recs, inPlaceOps)
	for _, op := range []string{"Linear", "Attention", "LayerNorm", "SwiGLU", "GatedAdd"} {
		if seen[op] == 0 {
			t.Errorf("no %s dispatch recorded (recorded: %v)", op, seen)
		}
	}
	for _, l := range bad {
		t.Errorf("input bound read_write: %s", l)
	}
	t.Logf("%d dispatches: %v", len(recs), seen)
}
