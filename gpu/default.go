package gpu

import "kleinbild/gpu/purego"

// Default returns a Device on the best backend compiled into this binary.
func Default() *Device { return NewDevice(defaultBackend()) }

func defaultBackend() Backend { return purego.New() }
