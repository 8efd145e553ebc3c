//go:build darwin && cgo && !noblas

package gpu

import "kleinbild/gpu/accelerate"

// nativeBackends: Apple's Accelerate framework.
func nativeBackends() []backendEntry {
	return []backendEntry{{"accelerate", func() Backend { return accelerate.New() }}}
}
