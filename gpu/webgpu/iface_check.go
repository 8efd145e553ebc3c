//go:build cgo

package webgpu

import "kleinbild/gpu"

var _ gpu.Backend = (*Backend)(nil)

// Compiled reports whether this build holds the WebGPU backend (it needs cgo).
const Compiled = true
