//go:build cgo

package webgpu

import (
	"slices"
	"testing"

	"kleinbild/gpu"
)

// TestQuantLoadersCoverTable: every packed type of internal/ggml's table of types
// (gpu.QuantTypes) has a WGSL block loader here, and no loader is for another type; a row
// added to the table without its loader fails here (the backend would refuse such weights,
// and the engine dequantize them on the host).
func TestQuantLoadersCoverTable(t *testing.T) {
	if got, want := QuantTypes(), gpu.QuantTypes(); !slices.Equal(got, want) {
		t.Errorf("WebGPU quant types %v, the table's %v", got, want)
	}
	for d := range wloadQuant {
		if !d.Quantized() {
			t.Errorf("a loader for %v, which is not a quantized type", d)
		}
	}
	if len(quantKernels) != len(gpu.QuantTypes()) {
		t.Errorf("%d quant kernels for %d types", len(quantKernels), len(gpu.QuantTypes()))
	}
}
