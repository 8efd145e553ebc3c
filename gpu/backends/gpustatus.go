package backends

import (
	"fmt"

	"kleinbild/gpu/webgpu"
)

// GPUNote explains, in one line, why Devices lists no GPU: a build without WebGPU, an
// instance that could not be created, or no Vulkan, Metal or Direct3D 12 adapter. It is ""
// when there is an adapter. It probes the adapters (tens of milliseconds).
func GPUNote() string {
	if !webgpu.Compiled {
		return "no GPU: this binary was built without WebGPU (cgo)"
	}
	ads, err := webgpu.AdapterDetails()
	switch {
	case err != nil:
		return fmt.Sprintf("no GPU: %v; the CPU backends work", err)
	case len(ads) == 0:
		return "no GPU: no Vulkan, Metal or Direct3D 12 adapter found (is a Vulkan driver installed?); the CPU backends work"
	}
	return ""
}
