package backends

import "fmt"

// OpenError is a device that Open could not open: ID as it was asked for, Err the reason
// (the backend's own error, a *gpu.DeviceError for a GPU that failed, or what is wrong with
// the ID). Front ends word it from Err; Error is the registry's wording.
type OpenError struct {
	ID   string
	Err  error
	kind openErrorKind
}

// openErrorKind picks OpenError's wording.
type openErrorKind int

const (
	openFailed  openErrorKind = iota // the device failed to open: "backends: open ID: ..."
	badID                            // the ID names no device: `backends: "ID": ...`
	unknownName                      // no such backend: "backends: ..." (Err names it)
)

func (e *OpenError) Error() string {
	switch e.kind {
	case badID:
		return fmt.Sprintf("backends: %q: %v", e.ID, e.Err)
	case unknownName:
		return "backends: " + e.Err.Error()
	}
	return fmt.Sprintf("backends: open %s: %v", e.ID, e.Err)
}

func (e *OpenError) Unwrap() error { return e.Err }
