package gpu

import (
	"errors"
	"fmt"
	"testing"
)

// A *DeviceError keeps the backend's words and is found through wrapping; NewDeviceError
// leaves nil and a DeviceError as they are.
func TestDeviceError(t *testing.T) {
	base := errors.New("webgpu: device lost")
	err := fmt.Errorf("transformer block 3: %w", NewDeviceError("webgpu", base))
	var de *DeviceError
	if !errors.As(err, &de) || de.Backend != "webgpu" || !errors.Is(err, base) || !IsDeviceError(err) {
		t.Fatalf("%v: not a webgpu DeviceError wrapping its cause", err)
	}
	if err.Error() != "transformer block 3: webgpu: device lost" {
		t.Errorf("message %q", err)
	}
	if NewDeviceError("webgpu", nil) != nil {
		t.Error("nil became an error")
	}
	if again := NewDeviceError("vulkan", de); again != error(de) {
		t.Errorf("wrapped twice: %#v", again)
	}
	if IsDeviceError(base) || IsDeviceError(nil) {
		t.Error("a plain error is a DeviceError")
	}
}
