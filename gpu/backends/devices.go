package backends

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/gpu/webgpu"
)

// EnvBackend names the environment variable that overrides Default's choice with a device ID
// (see Devices), e.g. KLEINBILD_BACKEND=webgpu to run everything on the best GPU adapter,
// software ones included.
const EnvBackend = "KLEINBILD_BACKEND"

// Device is one compute device a user can choose.
type Device struct {
	// ID is what Open takes: a backend name ("openblas", "purego", "webgpu") or, for one
	// WebGPU adapter, "webgpu:N" (N indexes webgpu.Adapters()).
	ID string
	// Backend is the backend name ("openblas", "webgpu", ...).
	Backend string
	Info    gpu.DeviceInfo
	// Auto is true for the device Default picks when no override is set.
	Auto bool
}

// Label is a one-line description for menus and listings.
func (d Device) Label() string {
	i := d.Info
	s := fmt.Sprintf("%s — %s (%s, %s)", d.ID, i.Name, i.Kind, i.API)
	if i.MemoryBytes > 0 {
		s += fmt.Sprintf(", %.1f GB", float64(i.MemoryBytes)/1e9)
	}
	return s
}

// Devices lists every device of this build: each CPU backend (its Info from a fresh
// instance), then each WebGPU adapter as "webgpu:N". The device Default would pick is
// marked Auto. Probing adapters takes tens of milliseconds; errors while probing leave the
// GPU entries out.
func Devices() []Device {
	var ds []Device
	for _, e := range cpuEntries() {
		b, err := e.open()
		if err != nil {
			continue
		}
		ds = append(ds, Device{ID: e.name, Backend: e.name, Info: b.Info()})
		b.Close()
	}
	if webgpu.Compiled {
		if infos, err := webgpu.Adapters(); err == nil {
			for i, info := range infos {
				ds = append(ds, Device{ID: fmt.Sprintf("webgpu:%d", i), Backend: "webgpu", Info: info})
			}
		}
	}
	auto := autoID(ds)
	for i := range ds {
		ds[i].Auto = ds[i].ID == auto
	}
	return ds
}

// autoID is the device Default picks among ds: the first real GPU (discrete before
// integrated), else the first CPU backend. A software adapter is never picked.
func autoID(ds []Device) string {
	for _, kind := range []gpu.DeviceKind{gpu.KindDiscrete, gpu.KindIntegrated} {
		for _, d := range ds {
			if d.Backend == "webgpu" && d.Info.Kind == kind {
				return d.ID
			}
		}
	}
	if len(ds) > 0 {
		return ds[0].ID
	}
	return "purego"
}

// Default returns the backend to use when the user chose none: the device named by
// $KLEINBILD_BACKEND when set (an unknown or failing one falls back as if unset), else a real
// GPU through WebGPU when one is present (never a software adapter), else the best CPU
// backend: OpenBLAS where cgo is on (not on macOS or Windows, and not with -tags noblas),
// Accelerate on macOS with cgo, pure Go otherwise. It never fails.
func Default() gpu.Backend {
	if id := strings.TrimSpace(os.Getenv(EnvBackend)); id != "" && !strings.EqualFold(id, "default") {
		if b, err := Open(id); err == nil {
			return b
		}
	}
	if webgpu.Compiled {
		if infos, err := webgpu.Adapters(); err == nil {
			for _, kind := range []gpu.DeviceKind{gpu.KindDiscrete, gpu.KindIntegrated} {
				for i, info := range infos {
					if info.Kind != kind {
						continue
					}
					if b, err := webgpu.New(webgpu.Options{Adapter: i}); err == nil {
						return b
					}
				}
			}
		}
	}
	return DefaultCPU()
}

// DefaultCPU returns the best CPU backend of this build (see Default). It never fails; the
// app falls back to it after a GPU failure.
func DefaultCPU() gpu.Backend {
	b, err := cpuEntries()[0].open()
	if err != nil { // cannot happen: CPU providers of the first rank always open
		return cpu.New(purego.New())
	}
	return b
}

// openAdapter opens "webgpu:N".
func openAdapter(id string) (gpu.Backend, bool, error) {
	name, idx, ok := strings.Cut(id, ":")
	if !ok || !strings.EqualFold(name, "webgpu") {
		return nil, false, nil
	}
	n, err := strconv.Atoi(idx)
	if err != nil || n < 0 {
		return nil, true, fmt.Errorf("backends: %q: want webgpu:N with N an adapter index (see kleinbild devices)", id)
	}
	if !webgpu.Compiled {
		return nil, true, fmt.Errorf("backends: %q: this binary was built without WebGPU (cgo)", id)
	}
	b, err := webgpu.New(webgpu.Options{Adapter: n})
	if err != nil {
		return nil, true, fmt.Errorf("backends: open %s: %w", id, err)
	}
	return b, true, nil
}
