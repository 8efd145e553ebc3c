//go:build !cgo || noblas || windows

package gpu

import "testing"

// TestDefaultIsPureGo: without a native BLAS the default is the pure-Go backend.
func TestDefaultIsPureGo(t *testing.T) {
	if got := Default().Name(); got != "purego" {
		t.Fatalf("Default() = %q, want purego", got)
	}
	if got := Backends(); len(got) != 1 {
		t.Errorf("Backends() = %v, want only purego", got)
	}
}
