//go:build cgo && windows && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"syscall"
)

// libName is the Vulkan loader's file name.
const libName = "vulkan-1.dll"

// openLibrary opens the Vulkan loader and returns a symbol lookup.
func openLibrary(name string) (func(string) (uintptr, error), error) {
	h, err := syscall.LoadLibrary(name)
	if err != nil {
		return nil, fmt.Errorf("vulkan: no Vulkan loader (%s: %v); install your GPU's driver", name, err)
	}
	return func(name string) (uintptr, error) { return syscall.GetProcAddress(h, name) }, nil
}
