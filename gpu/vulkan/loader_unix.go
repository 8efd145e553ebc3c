//go:build cgo && linux && (amd64 || arm64)

package vulkan

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// libName is the Vulkan loader's file name.
const libName = "libvulkan.so.1"

// openLibrary opens the Vulkan loader and returns a symbol lookup.
func openLibrary(name string) (func(string) (uintptr, error), error) {
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("vulkan: no Vulkan loader (%s: %v); install libvulkan1 and a driver (Debian: mesa-vulkan-drivers)", name, err)
	}
	return func(name string) (uintptr, error) { return purego.Dlsym(h, name) }, nil
}
