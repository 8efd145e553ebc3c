//go:build cgo && !noblas && !darwin && !windows

package gpu

import (
	"kleinbild/gpu/onednn"
	"kleinbild/gpu/openblas"
)

// nativeBackends: OpenBLAS, then oneDNN (bf16 products, f32 ones on OpenBLAS) where
// libdnnl.so.2 loads at run time and the CPU multiplies bf16 natively. oneDNN is never the
// default: it rounds activations to bf16 (see package onednn). Windows is left out because
// there is no OpenBLAS to link there in our toolchain (it builds the pure-Go backend); macOS
// uses Accelerate instead.
func nativeBackends() []backendEntry {
	bs := []backendEntry{{"openblas", func() Backend { return openblas.New() }}}
	if onednn.Available() == nil {
		bs = append(bs, backendEntry{"onednn", func() Backend {
			b, err := onednn.New(openblas.New())
			if err != nil { // cannot happen: Available succeeded and the load is cached
				panic(err)
			}
			return b
		}})
	}
	return bs
}
