package backends

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/gpu/vulkan"
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
	// GFLOPS is the device's matrix-product rate measured by tuning (0: not measured yet);
	// CPUGFLOPS the CPU backend's on the same product, measured at the same time. Both come
	// from the tuning cache (see Tune); CPU devices leave them 0.
	GFLOPS, CPUGFLOPS float64
	// MemorySource says where Info.MemoryBytes comes from for a GPU ("unknown" when 0).
	MemorySource string
	// DefaultUses is, for a WebGPU adapter, the device the automatic default opens when it
	// picks this card: the adapter itself, or the card's Vulkan device ("vulkan:M", exact
	// precision) where `kleinbild tune` measured it faster (CompareVulkan). DefaultWhy
	// says on what grounds. Both "" for other devices.
	DefaultUses, DefaultWhy string
	// MatrixUnits describes the device's matrix units, on which the fast precision
	// (gpu.PrecisionFast) runs: "" for none (every device but a Vulkan one with cooperative
	// matrices).
	MatrixUnits string
}

// Label is a one-line description for menus and listings.
func (d Device) Label() string {
	i := d.Info
	s := fmt.Sprintf("%s — %s (%s, %s)", d.ID, i.Name, i.Kind, i.API)
	if i.MemoryBytes > 0 {
		s += fmt.Sprintf(", %.1f GB", float64(i.MemoryBytes)/1e9)
	}
	if d.GFLOPS > 0 && d.CPUGFLOPS > 0 { // measured by tuning: the app's device list shows both
		s += fmt.Sprintf(", %.0f GFLOP/s (CPU %.0f)", d.GFLOPS, d.CPUGFLOPS)
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
		if ads, err := webgpu.AdapterDetails(); err == nil {
			states := vulkanStates(ads, true)
			for i, a := range ads {
				d := Device{ID: fmt.Sprintf("webgpu:%d", i), Backend: "webgpu", Info: a.Info, MemorySource: a.MemorySource}
				if c := webgpu.CachedTuning(a, "", false); c != nil {
					d.GFLOPS, d.CPUGFLOPS = c.GPUGFLOPS, c.CPUGFLOPS
				}
				d.DefaultUses = d.ID
				use, why := vulkanVerdict(states[i])
				if use {
					d.DefaultUses = states[i].VulkanID
				}
				d.DefaultWhy = why
				ds = append(ds, d)
			}
		}
	}
	ds = append(ds, vulkanDevices()...)
	auto := autoID(ds)
	for i := range ds {
		ds[i].Auto = ds[i].ID == auto
	}
	return ds
}

// autoID is the device Default picks among ds: the first real GPU (discrete before
// integrated) that is not known to be slower than the CPU, through its DefaultUses (WebGPU,
// or the card's Vulkan device where measured faster), else the first CPU backend. A
// software adapter is never picked. See gpuFaster and vulkanVerdict.
func autoID(ds []Device) string {
	for _, kind := range []gpu.DeviceKind{gpu.KindDiscrete, gpu.KindIntegrated} {
		for _, d := range ds {
			if d.Backend == "webgpu" && d.Info.Kind == kind && gpuFaster(d.GFLOPS, d.CPUGFLOPS) {
				if d.DefaultUses != "" {
					return d.DefaultUses
				}
				return d.ID
			}
		}
	}
	if len(ds) > 0 {
		return ds[0].ID
	}
	return "purego"
}

// gpuFaster is the default-device rule: a GPU is the automatic choice unless tuning has
// measured it (gpu > 0) and the CPU backend (cpu > 0) on the same matrix product and the CPU
// was at least as fast. A GPU not measured yet counts as faster: DefaultTuned measures it
// (again, when the kernels changed since) before deciding, Default and Devices decide on the
// cached figures alone.
func gpuFaster(gpuGFLOPS, cpuGFLOPS float64) bool {
	return gpuGFLOPS <= 0 || cpuGFLOPS <= 0 || gpuGFLOPS > cpuGFLOPS
}

// Default returns the backend to use when the user chose none: the device named by
// $KLEINBILD_BACKEND when set (an unknown or failing one falls back as if unset), else a real
// GPU through WebGPU when one is present and not measured slower than the CPU (gpuFaster;
// never a software adapter), through the Vulkan backend in its exact precision instead where
// `kleinbild tune` measured that faster on the card (vulkanVerdict), else the best CPU
// backend: OpenBLAS where cgo is on (not on macOS or Windows, and not with -tags noblas),
// Accelerate on macOS with cgo, pure Go otherwise. It never fails and never tunes (see DefaultTuned); a GPU opens with its cached
// tuning applied.
func Default() gpu.Backend {
	b, _ := defaultBackend(context.Background(), nil)
	return b
}

// defaultBackend is Default, and with tune set DefaultTuned.
func defaultBackend(ctx context.Context, tune *TuneOptions) (gpu.Backend, error) {
	if id := EnvID(); id != "" {
		if b, err := Open(id); err == nil {
			return b, nil
		}
	}
	if webgpu.Compiled {
		if ads, err := webgpu.AdapterDetails(); err == nil {
			states := vulkanStates(ads, false)
			for _, kind := range []gpu.DeviceKind{gpu.KindDiscrete, gpu.KindIntegrated} {
				for i, a := range ads {
					if a.Info.Kind != kind {
						continue
					}
					g, c := cachedSpeeds(a)
					measure := tune != nil && (g <= 0 || c <= 0 || !webgpu.TuningCurrent(a))
					if !measure && !gpuFaster(g, c) {
						continue
					}
					if use, _ := vulkanVerdict(states[i]); use && !measure {
						if vb, err := vulkan.New(vulkan.Options{Device: vulkanIndex(states[i].VulkanID)}); err == nil {
							return vb, nil
						}
					}
					b, err := webgpu.New(webgpu.Options{Adapter: i, Tuned: true})
					if err != nil {
						continue
					}
					if measure {
						res, err := Tune(ctx, b, *tune)
						if err != nil {
							b.Close()
							if ctx.Err() != nil {
								return DefaultCPU(), ctx.Err()
							}
							continue
						}
						g, c = res.GPUGFLOPS, res.CPUGFLOPS
					}
					if gpuFaster(g, c) {
						return b, nil
					}
					b.Close()
				}
			}
		}
	}
	return DefaultCPU(), nil
}

// cachedSpeeds are the tuning cache's rates of adapter a (0 when not measured).
func cachedSpeeds(a webgpu.Adapter) (gpuGFLOPS, cpuGFLOPS float64) {
	if c := webgpu.CachedTuning(a, "", false); c != nil {
		return c.GPUGFLOPS, c.CPUGFLOPS
	}
	return 0, 0
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

// openAdapter opens "webgpu:N" (or "vulkan:N", see openVulkan).
func openAdapter(id string) (gpu.Backend, bool, error) {
	name, idx, ok := strings.Cut(id, ":")
	if ok && strings.EqualFold(name, "vulkan") {
		return openVulkan(id, idx)
	}
	if !ok || !strings.EqualFold(name, "webgpu") {
		return nil, false, nil
	}
	n, err := strconv.Atoi(idx)
	if err != nil || n < 0 {
		return nil, true, &OpenError{ID: id, Err: errors.New("want webgpu:N with N an adapter index (see kleinbild devices)"), kind: badID}
	}
	if !webgpu.Compiled {
		return nil, true, &OpenError{ID: id, Err: errors.New("this binary was built without WebGPU (cgo)"), kind: badID}
	}
	b, err := webgpu.New(webgpu.Options{Adapter: n, Tuned: true})
	if err != nil {
		return nil, true, &OpenError{ID: id, Err: err}
	}
	return b, true, nil
}

func envIsOne(name string) bool { return strings.TrimSpace(os.Getenv(name)) == "1" }
