package gpu

import (
	"fmt"
	"strings"
)

// Precision is the arithmetic of a backend's matrix products.
type Precision string

const (
	// PrecisionExact multiplies in float32: the golden path (tolerance 1e-5), every
	// backend's, and the CLI's default.
	PrecisionExact Precision = "exact"
	// PrecisionFast multiplies float16 operands with float32 sums on the device's matrix
	// units (Vulkan's cooperative matrices; a plain twin kernel with the same roundings where
	// the device has none). The CLI runs it only when asked; the app by default on a device
	// with matrix units.
	PrecisionFast Precision = "fast"
)

// ParsePrecision reads "exact" or "fast" (case-insensitive; "" is exact).
func ParsePrecision(s string) (Precision, error) {
	switch p := Precision(strings.ToLower(strings.TrimSpace(s))); p {
	case "", PrecisionExact:
		return PrecisionExact, nil
	case PrecisionFast:
		return PrecisionFast, nil
	}
	return "", fmt.Errorf("precision %q: want exact or fast", s)
}

// Precisioner is implemented by backends with more than the exact precision (vulkan).
type Precisioner interface {
	// SetPrecision selects the precision of the products queued from now on and returns how
	// the backend runs it, e.g. "fast (matrix units, 16×16×16 f16)" or "fast (twin kernels:
	// the device has no matrix units)".
	SetPrecision(p Precision) (string, error)
}

// KernelCheck is one fast kernel compared with its twin (same roundings, float32 sums in
// another order) on one product.
type KernelCheck struct {
	Kernel, Twin string
	Shape        string  // e.g. "rows=77 in=3072 out=3072"
	RelL2        float64 // ‖kernel − twin‖ / ‖twin‖
	MaxDiff      float64 // max |kernel − twin|
	Tol          float64 // the bound on RelL2
}

// OK reports whether the check passed (NaN fails).
func (c KernelCheck) OK() bool { return c.RelL2 <= c.Tol }

// SelfChecker is implemented by backends whose fast kernels have plain twins (vulkan).
type SelfChecker interface {
	// SelfCheck runs every matrix-unit kernel against its twin and returns the checks and a
	// line describing the device's matrix units. A device without them runs nothing: no
	// checks, and the note says so.
	SelfCheck() (checks []KernelCheck, note string, err error)
}
