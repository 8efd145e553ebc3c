package backends

import (
	"errors"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// Issue 35: Open's failures are *OpenError, worded as before, whose Err is the reason the
// CLI prints (it trimmed the registry's prefixes off the text); a GPU that fails to open
// is a *gpu.DeviceError inside.
func TestOpenErrors(t *testing.T) {
	for id, want := range map[string]string{
		"webgpu:x": `backends: "webgpu:x": want webgpu:N with N an adapter index (see kleinbild devices)`,
		"vulkan:x": `backends: "vulkan:x": want vulkan:N with N a device index (see kleinbild devices)`,
		"abacus":   `backends: backend "abacus" is not compiled into this binary (available: `,
	} {
		_, err := Open(id)
		var oe *OpenError
		if !errors.As(err, &oe) || oe.ID != id {
			t.Errorf("%s: %v (%T), want an *OpenError", id, err, err)
			continue
		}
		if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("%s: %q, want %q…", id, got, want)
		}
		if gpu.IsDeviceError(err) {
			t.Errorf("%s: a malformed ID is a device error", id)
		}
	}
	if !webgpu.Compiled {
		return
	}
	_, err := Open("webgpu:99")
	var oe *OpenError
	if !errors.As(err, &oe) || !gpu.IsDeviceError(err) || err.Error() != "backends: open webgpu:99: "+oe.Err.Error() {
		t.Errorf("webgpu:99: %v (%T), want an *OpenError holding a *gpu.DeviceError", err, err)
	}
}
