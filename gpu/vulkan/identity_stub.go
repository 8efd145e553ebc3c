//go:build !cgo || !(linux || windows) || !(amd64 || arm64)

package vulkan

import "errors"

// Identities lists no device in this build.
func Identities() ([]Identity, error) {
	return nil, errors.New("vulkan: not built into this binary (needs Linux or Windows, 64-bit, with cgo)")
}

// KernelHash is "" in this build (no kernels).
func KernelHash() string { return "" }
