package bench

import (
	"context"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// limitedGPU is a CPU backend that describes itself as a GPU with 4 KB buffers.
type limitedGPU struct{ gpu.Backend }

func (limitedGPU) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Name: "tiny card", Kind: gpu.KindDiscrete, MaxBufferBytes: 4096, MaxBindingBytes: 4096}
}

// TestRunRefusesSizeOverLimits: a size whose buffers exceed the device's limits is refused
// before the model opens, naming the size and the limit, not in the middle of a step.
func TestRunRefusesSizeOverLimits(t *testing.T) {
	b := limitedGPU{backends.DefaultCPU()}
	defer b.Close()
	rep, err := Run(context.Background(), Options{ModelDir: golden.TinyModel(t), Sizes: []int{64}, PeakReps: -1, Backend: b})
	if err == nil || !strings.Contains(err.Error(), "64² does not fit") || !strings.Contains(err.Error(), "per buffer") {
		t.Fatalf("got %v", err)
	}
	if rep != nil {
		t.Errorf("a report for a run that never started: %+v", rep)
	}
}
