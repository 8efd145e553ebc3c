//go:build cgo && !noblas && !darwin && !windows

package backends

import (
	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/onednn"
	"kleinbild/gpu/cpu/openblas"
)

// nativeEntries: OpenBLAS, then oneDNN (bf16 products, f32 ones on OpenBLAS) where
// libdnnl.so.2 loads at run time and the CPU multiplies bf16 natively. oneDNN is never the
// default: it rounds activations to bf16 (see package onednn). Windows is left out because
// there is no OpenBLAS to link there in our toolchain (it builds the pure-Go backend); macOS
// uses Accelerate instead.
func nativeEntries() []entry {
	es := []entry{cpuEntry("openblas", func() cpu.BLAS { return openblas.New() })}
	if onednn.Available() == nil {
		es = append(es, entry{"onednn", func() (gpu.Backend, error) {
			b, err := onednn.New(openblas.New())
			if err != nil {
				return nil, err
			}
			return cpu.New(b), nil
		}})
	}
	return es
}
