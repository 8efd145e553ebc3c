package gpu

import (
	"fmt"
	"strings"

	"kleinbild/gpu/purego"
)

// backendEntry is one backend compiled into this binary.
type backendEntry struct {
	name string
	open func() Backend
}

// compiledBackends lists the backends of this build, best first: the native BLAS of the
// platform (see native_*.go) and then the pure-Go fallback, which is always there.
func compiledBackends() []backendEntry {
	return append(nativeBackends(), backendEntry{"purego", func() Backend { return purego.New() }})
}

// Default returns a Device on the best backend compiled into this binary: OpenBLAS where cgo is
// on (not on macOS or Windows, and not with -tags noblas), Accelerate on macOS with cgo, and the
// pure-Go backend otherwise.
func Default() *Device { return NewDevice(compiledBackends()[0].open()) }

// Backends returns the names of the backends compiled into this binary, best first. "purego" is
// always among them. Use it to offer a choice (CLI flag, settings) and ByName to open one.
func Backends() []string {
	var names []string
	for _, b := range compiledBackends() {
		names = append(names, b.name)
	}
	return names
}

// ByName returns a Device on the named backend (see Backends); the name is case-insensitive and
// "" or "default" means Default.
func ByName(name string) (*Device, error) {
	if name == "" || strings.EqualFold(name, "default") {
		return Default(), nil
	}
	for _, b := range compiledBackends() {
		if strings.EqualFold(name, b.name) {
			return NewDevice(b.open()), nil
		}
	}
	return nil, fmt.Errorf("gpu: backend %q is not compiled into this binary (available: %s)", name, strings.Join(Backends(), ", "))
}
