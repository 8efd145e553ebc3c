//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import "kleinbild/gpu"

var _ gpu.Backend = (*Backend)(nil)
