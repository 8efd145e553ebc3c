package backends

import (
	"kleinbild/gpu"
	"kleinbild/gpu/vulkan"
	"kleinbild/gpu/webgpu"
)

// gpuEntries lists the GPU backends of this build, after the CPU ones in Names: "webgpu"
// wherever it is compiled (cgo), whether or not an adapter is present: Open then fails with
// the reason (no Vulkan, Metal or Direct3D 12 device). It opens the best adapter (see
// webgpu.Options) with its cached tuning applied; Default's policy (devices.go) decides when it is the default.
// "vulkan" follows where compiled (vulkanEntries).
func gpuEntries() []entry {
	var es []entry
	if webgpu.Compiled {
		es = append(es, entry{"webgpu", func() (gpu.Backend, error) {
			b, err := webgpu.New(webgpu.Options{Adapter: -1, Tuned: true})
			if err != nil {
				return nil, err
			}
			return b, nil
		}})
	}
	return append(es, vulkanEntries()...)
}

// vulkanEntries lists "vulkan" where it is compiled (Linux and Windows with cgo): the best
// Vulkan device, opened by name; Default takes a card's Vulkan device only where tuning
// measured it faster than WebGPU (vulkan_rule.go).
func vulkanEntries() []entry {
	if !vulkan.Compiled {
		return nil
	}
	return []entry{{"vulkan", func() (gpu.Backend, error) { return vulkan.New(vulkan.Options{Device: -1}) }}}
}
