//go:build !cgo || noblas || windows

package cpu

// nativeTestProviders: none in this build.
func nativeTestProviders() []BLAS { return nil }
