//go:build !cgo || noblas || windows

package backends

// nativeEntries: none in this build (no cgo, -tags noblas, or Windows); purego is used.
func nativeEntries() []entry { return nil }
