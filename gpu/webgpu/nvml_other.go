//go:build !linux || !cgo

package webgpu

const nvmlLibrary = ""

// nvmlMemory is 0 here: NVML is only loaded on Linux.
func nvmlMemory(string, uint32, uint32) int64 { return 0 }
