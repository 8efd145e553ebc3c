//go:build cgo

package qwen3

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/gpu/webgpu"
	"kleinbild/weights/golden"
)

// inPlaceOps are the ops of a layer whose inputs may share a buffer with their output: they
// work in place by design. HeadRMSNorm normalises q and k where they lie; SiLU and Mul form
// the MLP's gate in place; Add is the residual.
var inPlaceOps = map[string]bool{"HeadRMSNorm": true, "SiLU": true, "Mul": true, "Add": true}

// TestReadOnlyInputBindings encodes a prompt with the tiny encoder on WebGPU and checks that
// every input of every other dispatch (the Linears, RMSNorm, RoPE's tables, Attention) is
// bound read-only: each activation is its own tensor, so a device sees those operands
// NonWritable.
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
	e, err := Load(filepath.Join(golden.TinyModel(t), "text_encoder"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids, mask := promptInputs(t, 0)
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "prompt_embeds")

	var recs []webgpu.BindingRecord
	b.TraceBindings(func(r webgpu.BindingRecord) { recs = append(recs, r) })
	got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	b.TraceBindings(nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "prompt_embeds", got, want, relTol)

	seen, bad := webgpu.ReadWriteInputs(recs, inPlaceOps)
	for _, op := range []string{"Linear", "Attention", "RMSNorm", "RoPE"} {
		if seen[op] == 0 {
			t.Errorf("no %s dispatch recorded (recorded: %v)", op, seen)
		}
	}
	for _, l := range bad {
		t.Errorf("input bound read_write: %s", l)
	}
	t.Logf("%d dispatches: %v", len(recs), seen)
}
