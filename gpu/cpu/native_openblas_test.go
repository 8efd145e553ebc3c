//go:build cgo && !noblas && !darwin && !windows

package cpu

import (
	"kleinbild/gpu/cpu/onednn"
	"kleinbild/gpu/cpu/openblas"
)

// nativeTestProviders: OpenBLAS, and oneDNN on OpenBLAS where it loads.
func nativeTestProviders() []BLAS {
	ps := []BLAS{openblas.New()}
	if o, err := onednn.New(openblas.New()); err == nil {
		ps = append(ps, o)
	}
	return ps
}
