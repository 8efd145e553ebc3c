// Package backends lists the compute backends compiled into this binary and opens them by
// name: the CPU backends of package cpu (a GEMM provider under the Go kernels) and, where built,
// GPU backends.
//
// Which CPU providers a binary holds is fixed at build time:
//   - openblas: cgo and not -tags noblas, except on macOS and Windows (Debian: libopenblas-dev);
//   - accelerate: macOS with cgo and not -tags noblas;
//   - purego: always (gonum's Sgemm), the only one with CGO_ENABLED=0 or -tags noblas;
//   - onednn: with openblas, where Intel's oneDNN (libdnnl.so.2) loads at run time and the CPU
//     multiplies bf16 natively; never the default (it rounds activations to bf16).
package backends

import (
	"fmt"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
)

// entry is one backend compiled into this binary.
type entry struct {
	name string
	open func() (gpu.Backend, error)
}

// cpuEntry is the entry of a CPU backend on a GEMM provider that cannot fail to open.
func cpuEntry(name string, blas func() cpu.BLAS) entry {
	return entry{name, func() (gpu.Backend, error) { return cpu.New(blas()), nil }}
}

// cpuEntries lists the CPU backends of this build, best first: the native BLAS of the
// platform (see native_*.go) and then the pure-Go fallback, which is always there.
func cpuEntries() []entry {
	return append(nativeEntries(), cpuEntry("purego", func() cpu.BLAS { return purego.New() }))
}

// entries lists every backend of this build: the CPU ones, then the GPU ones (gpu_entries.go).
func entries() []entry { return append(cpuEntries(), gpuEntries()...) }

// Names returns the names of the backends compiled into this binary, best first. "purego" is
// always among them. Use it to offer a choice (CLI flag, settings) and Open to open one.
func Names() []string {
	var names []string
	for _, e := range entries() {
		names = append(names, e.name)
	}
	return names
}

// Open returns the named backend (see Names) or device (see Devices: "webgpu:N" opens one
// adapter); names are case-insensitive and "" or "default" means Default.
func Open(name string) (gpu.Backend, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "default") {
		return Default(), nil
	}
	if b, ok, err := openAdapter(name); ok {
		return b, err
	}
	for _, e := range entries() {
		if strings.EqualFold(name, e.name) {
			b, err := e.open()
			if err != nil {
				return nil, &OpenError{ID: e.name, Err: err}
			}
			return b, nil
		}
	}
	return nil, &OpenError{ID: name, Err: fmt.Errorf("backend %q is not compiled into this binary (available: %s)", name, strings.Join(Names(), ", ")), kind: unknownName}
}
