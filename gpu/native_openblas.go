//go:build cgo && !noblas && !darwin && !windows

package gpu

import "kleinbild/gpu/openblas"

// nativeBackends: OpenBLAS. Windows is left out because there is no OpenBLAS to link there in our
// toolchain (it builds the pure-Go backend); macOS uses Accelerate instead.
func nativeBackends() []backendEntry {
	return []backendEntry{{"openblas", func() Backend { return openblas.New() }}}
}
