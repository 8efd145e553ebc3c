package backends

import (
	"errors"
	"fmt"
	"strconv"

	"kleinbild/gpu"
	"kleinbild/gpu/vulkan"
)

// vulkanDevices lists each Vulkan device as "vulkan:N" (N indexes vulkan.Devices()), none when
// the backend is not compiled in or Vulkan does not load.
func vulkanDevices() []Device {
	if !vulkan.Compiled {
		return nil
	}
	infos, err := vulkan.Devices()
	if err != nil {
		return nil
	}
	units, _ := vulkan.MatrixUnits() // none known when the probe fails
	ds := make([]Device, len(infos))
	for i, in := range infos {
		ds[i] = Device{ID: fmt.Sprintf("vulkan:%d", i), Backend: "vulkan", Info: in, MemorySource: "Vulkan heap"}
		if i < len(units) {
			ds[i].MatrixUnits = units[i]
		}
	}
	return ds
}

// openVulkan opens device "vulkan:N" (id, with idx the text after the colon).
func openVulkan(id, idx string) (gpu.Backend, bool, error) {
	n, err := strconv.Atoi(idx)
	if err != nil || n < 0 {
		return nil, true, &OpenError{ID: id, Err: errors.New("want vulkan:N with N a device index (see kleinbild devices)"), kind: badID}
	}
	if !vulkan.Compiled {
		return nil, true, &OpenError{ID: id, Err: errors.New("this binary was built without Vulkan (needs Linux or Windows with cgo)"), kind: badID}
	}
	b, err := vulkan.New(vulkan.Options{Device: n})
	if err != nil {
		return nil, true, &OpenError{ID: id, Err: err}
	}
	return b, true, nil
}
