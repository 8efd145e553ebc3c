//go:build cgo

package vae

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"kleinbild/gpu/webgpu/webgputest"
	"kleinbild/weights/golden"
)

// inPlaceOps are the ops of a pass whose inputs may share a buffer with their output: they
// work in place by design. SiLU follows each GroupNorm where it wrote; Add is the residual.
var inPlaceOps = map[string]bool{"SiLU": true, "Add": true}

// TestReadOnlyInputBindings decodes and encodes with the tiny VAE on WebGPU and checks that
// every input of every other dispatch (Conv2D, GroupNorm, the attention's Linears,
// Transposes and Attention) is bound read-only: the pass never has a kernel read the buffer
// it writes, so a device sees those operands NonWritable.
func TestReadOnlyInputBindings(t *testing.T) {
	b := webgputest.Open(t)
	v, err := Load(filepath.Join(golden.TinyModel(t), "vae"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sz := sizes[0]
	dec := golden.Open(t, fmt.Sprintf("vae/decode_%dx%d.safetensors", sz.h, sz.w))
	enc := golden.Open(t, fmt.Sprintf("vae/encode_%dx%d.safetensors", sz.h, sz.w))
	unpatched, _ := golden.F32(t, dec, "unpatchified")
	wantDec, _ := golden.F32(t, dec, "decoded")
	img, _ := golden.F32(t, enc, "image")
	wantEnc, _ := golden.F32(t, enc, "latent_mode")

	var gotDec, gotEnc []float32
	var errDec, errEnc error
	recs := webgputest.Trace(b, func() {
		gotDec, errDec = v.Decode(context.Background(), unpatched, sz.h/8, sz.w/8, nil)
		gotEnc, errEnc = v.Encode(context.Background(), img, sz.h, sz.w, nil)
	})
	if errDec != nil || errEnc != nil {
		t.Fatalf("decode: %v; encode: %v", errDec, errEnc)
	}
	golden.Compare(t, "decoded", gotDec, wantDec, stageTol)
	golden.Compare(t, "latent_mode", gotEnc, wantEnc, stageTol)

	webgputest.CheckReadOnly(t, recs, inPlaceOps, "Conv2D", "GroupNorm", "Linear", "Attention", "Transpose")
}
