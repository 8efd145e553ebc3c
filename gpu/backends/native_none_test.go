//go:build !cgo || noblas || windows

package backends

import (
	"testing"

	"kleinbild/gpu/cpu"
)

// TestDefaultIsPureGo: without a native BLAS the default is the pure-Go backend.
func TestDefaultIsPureGo(t *testing.T) {
	if got := Default().Name(); got != "purego" {
		t.Fatalf("Default() = %q, want purego", got)
	}
	if got := len(cpuEntries()); got != 1 {
		t.Errorf("CPU backends %v, want only purego", Names())
	}
	if _, ok := Default().(*cpu.Backend); !ok {
		t.Errorf("Default() is %T, want *cpu.Backend", Default())
	}
}
