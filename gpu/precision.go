package gpu

import (
	"fmt"
	"strings"
)

// Precision is the arithmetic of a backend's matrix products.
type Precision string

const (
	// PrecisionExact multiplies in float32: the golden path (tolerance 1e-5), every
	// backend's and always the default.
	PrecisionExact Precision = "exact"
	// PrecisionFast multiplies float16 operands with float32 sums on the device's matrix
	// units (Vulkan's cooperative matrices; a plain twin kernel with the same roundings where
	// the device has none). Only an explicit choice.
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
