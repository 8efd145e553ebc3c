//go:build darwin && cgo && !noblas

package backends

import (
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/accelerate"
)

// nativeEntries: Apple's Accelerate framework.
func nativeEntries() []entry {
	return []entry{cpuEntry("accelerate", func() cpu.BLAS { return accelerate.New() })}
}
