//go:build cgo

package qwen3

import (
	"context"
	"path/filepath"
	"testing"

	"kleinbild/gpu/webgpu/webgputest"
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
	b := webgputest.Open(t)
	e, err := Load(filepath.Join(golden.TinyModel(t), "text_encoder"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ids, mask := promptInputs(t, 0)
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "prompt_embeds")

	var got []float32
	recs := webgputest.Trace(b, func() { got, err = e.Encode(context.Background(), ids, mask, DefaultLayers, nil) })
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "prompt_embeds", got, want, relTol)

	webgputest.CheckReadOnly(t, recs, inPlaceOps, "Linear", "Attention", "RMSNorm", "RoPE")
}
