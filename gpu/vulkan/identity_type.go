package vulkan

import (
	"fmt"

	"kleinbild/gpu"
)

// Identity is what tells one Vulkan device and driver from another: the PCI identifiers pair
// it with the same card's WebGPU adapter, the driver version dates measurements on it.
type Identity struct {
	Name                      string
	Kind                      gpu.DeviceKind
	VendorID, DeviceID        uint32
	DriverVersion, APIVersion uint32
}

// Key is the identity as one string, for cache keys.
func (id Identity) Key() string {
	return fmt.Sprintf("%04x:%04x|%s|driver %d|api %d", id.VendorID, id.DeviceID, id.Name, id.DriverVersion, id.APIVersion)
}
