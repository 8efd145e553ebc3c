//go:build !cgo || !(linux || windows) || !(amd64 || arm64)

package vulkan

import "errors"

// MatrixUnits lists no device in this build.
func MatrixUnits() ([]string, error) {
	return nil, errors.New("vulkan: not built into this binary (needs Linux or Windows, 64-bit, with cgo)")
}
