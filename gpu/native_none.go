//go:build !cgo || noblas || windows

package gpu

// nativeBackends: none in this build (no cgo, -tags noblas, or Windows); purego is used.
func nativeBackends() []backendEntry { return nil }
