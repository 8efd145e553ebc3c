//go:build !darwin || !cgo

package webgpu

// metalWorkingSet is 0 outside macOS.
func metalWorkingSet() int64 { return 0 }
