package gpu

import "errors"

// DeviceError is a failure of a GPU backend's device: one that cannot be opened, is lost,
// runs out of memory or refuses an operation. The webgpu and vulkan backends return their
// errors as one; the CPU backends never do. Front ends match it with errors.As (or
// IsDeviceError) to tell a failing GPU from other errors, e.g. to fall back to the CPU.
type DeviceError struct {
	Backend string // the backend's name: "webgpu", "vulkan"
	Err     error  // the backend's own error, whose text starts with its name
}

// Error is the backend's own message.
func (e *DeviceError) Error() string { return e.Err.Error() }

func (e *DeviceError) Unwrap() error { return e.Err }

// NewDeviceError is err as a *DeviceError of backend: nil for nil, err itself when it is
// one already.
func NewDeviceError(backend string, err error) error {
	var de *DeviceError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &DeviceError{Backend: backend, Err: err}
}

// IsDeviceError reports whether err is, or wraps, a *DeviceError.
func IsDeviceError(err error) bool {
	var de *DeviceError
	return errors.As(err, &de)
}
