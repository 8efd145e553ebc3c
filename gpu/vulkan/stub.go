//go:build !cgo || !(linux || windows) || !(amd64 || arm64)

package vulkan

import (
	"errors"

	"kleinbild/gpu"
)

// Options selects the device of New.
type Options struct {
	// Device is an index into Devices(), or -1 for the best device.
	Device int
}

// Compiled reports whether this build holds the Vulkan backend.
const Compiled = false

// New fails: this build has no Vulkan backend.
func New(Options) (gpu.Backend, error) {
	return nil, errors.New("vulkan: not built into this binary (needs Linux or Windows, 64-bit, with cgo)")
}

// Devices lists no device in this build.
func Devices() ([]gpu.DeviceInfo, error) {
	return nil, errors.New("vulkan: not built into this binary (needs Linux or Windows, 64-bit, with cgo)")
}

// QuantTypes lists no type in this build.
func QuantTypes() []gpu.DType { return nil }
