//go:build darwin && cgo && !noblas

package cpu

import "kleinbild/gpu/cpu/accelerate"

// nativeTestProviders: Apple's Accelerate.
func nativeTestProviders() []BLAS { return []BLAS{accelerate.New()} }
