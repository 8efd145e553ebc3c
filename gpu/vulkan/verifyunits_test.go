//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"errors"
	"math"
	"strings"
	"testing"

	"kleinbild/gpu"
)

// TestVerifyUnits: the fast precision keeps a device's matrix units only when every one of
// their kernels agrees with its twin; a failing, NaN or unrunnable check gives them up for
// the twins, and the note says why (the app's default is fast on such a device, so kernels
// that never met the card prove themselves first). lavapipe has no units: they are faked.
func TestVerifyUnits(t *testing.T) {
	b := openTest(t).(*Backend)
	pass := gpu.KernelCheck{Kernel: "linearcm", Twin: "linearf16", Shape: "rows=1", RelL2: 1e-6, Tol: 1e-4}
	for _, c := range []struct {
		name   string
		checks []gpu.KernelCheck
		err    error
		keep   bool
		reason string
	}{
		{"all pass", []gpu.KernelCheck{pass, pass}, nil, true, ""},
		{"one differs", []gpu.KernelCheck{pass, {Kernel: "attncm", Twin: "attnf16", Shape: "seq=77", RelL2: 0.3, Tol: 5e-4}}, nil, false, "attncm differs from attnf16 on seq=77"},
		{"NaN", []gpu.KernelCheck{{Kernel: "convcm", Twin: "convf16", Shape: "c=8", RelL2: math.NaN(), Tol: 1e-4}}, nil, false, "convcm differs"},
		{"cannot run", []gpu.KernelCheck{pass}, errors.New("device lost"), false, "device lost"},
	} {
		b.units, b.unitsNote = &matrixUnits{m: 16, n: 16, k: 16, subgroup: 32}, ""
		b.verifyUnits(func() ([]gpu.KernelCheck, string, error) { return c.checks, "", c.err })
		if got := b.units != nil; got != c.keep {
			t.Errorf("%s: units kept = %v, want %v (note %q)", c.name, got, c.keep, b.unitsNote)
		}
		if !c.keep && (!strings.Contains(b.unitsNote, "failed their self-check") || !strings.Contains(b.unitsNote, c.reason)) {
			t.Errorf("%s: note %q does not say the self-check failed with %q", c.name, b.unitsNote, c.reason)
		}
		if !c.keep && !strings.Contains(b.fastNote(), "twin kernel") {
			t.Errorf("%s: fast note %q does not name the twins", c.name, b.fastNote())
		}
	}
	b.units, b.unitsNote = nil, "no matrix units (test)"
}
