package uitest

import (
	"context"

	"kleinbild/engine"
	"kleinbild/gpu"
)

// GPUGen is a generator on a WebGPU device that fails every generation with Err, the way
// such a device does, wrapped by the engine.
type GPUGen struct{ Err error }

// Generate reports loading and fails with g.Err.
func (g *GPUGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	progress(engine.Progress{Phase: engine.PhaseLoading})
	return nil, g.Err
}

// ComputeDevice is WebGPU on a discrete test GPU.
func (g *GPUGen) ComputeDevice() (string, gpu.DeviceInfo) {
	return "webgpu", gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan"}
}
