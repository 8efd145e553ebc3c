package backends

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/webgpu"
)

// TestDefaultRule: the automatic default is a real GPU only when it is not measured slower
// than the CPU; unmeasured GPUs keep the old preference, software adapters are never picked.
func TestDefaultRule(t *testing.T) {
	cpu := Device{ID: "openblas", Backend: "openblas", Info: gpu.DeviceInfo{Kind: gpu.KindCPU}}
	gpuDev := func(id string, kind gpu.DeviceKind, g, c float64) Device {
		return Device{ID: id, Backend: "webgpu", Info: gpu.DeviceInfo{Kind: kind}, GFLOPS: g, CPUGFLOPS: c}
	}
	for _, c := range []struct {
		name string
		ds   []Device
		want string
	}{
		{"no GPU", []Device{cpu}, "openblas"},
		{"unmeasured discrete", []Device{cpu, gpuDev("webgpu:0", gpu.KindDiscrete, 0, 0)}, "webgpu:0"},
		{"faster discrete", []Device{cpu, gpuDev("webgpu:0", gpu.KindDiscrete, 5000, 300)}, "webgpu:0"},
		{"slower discrete", []Device{cpu, gpuDev("webgpu:0", gpu.KindDiscrete, 200, 300)}, "openblas"},
		{"equal speed", []Device{cpu, gpuDev("webgpu:0", gpu.KindIntegrated, 300, 300)}, "openblas"},
		{"slow discrete, fast integrated", []Device{cpu, gpuDev("webgpu:0", gpu.KindDiscrete, 100, 300),
			gpuDev("webgpu:1", gpu.KindIntegrated, 900, 300)}, "webgpu:1"},
		{"GPU rate only", []Device{cpu, gpuDev("webgpu:0", gpu.KindIntegrated, 100, 0)}, "webgpu:0"},
		{"fast software adapter", []Device{cpu, gpuDev("webgpu:0", gpu.KindSoftware, 1e6, 1)}, "openblas"},
	} {
		if got := autoID(c.ds); got != c.want {
			t.Errorf("%s: autoID = %s, want %s", c.name, got, c.want)
		}
	}
}

// TestTuneMeasuresCPU tunes the first WebGPU adapter on tiny shapes with the cache in a
// temporary $XDG_CACHE_HOME: the CPU backend is measured on the same product, the cache
// holds both rates, and Devices shows them; then the Vulkan comparison (checkCompareVulkan).
func TestTuneMeasuresCPU(t *testing.T) {
	if !webgpu.Compiled {
		t.Skip("no WebGPU in this build")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // macOS' cache folder
	b, err := Open("webgpu:0")
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	if note := UntunedNote(b); !strings.Contains(note, "runs untuned") || !strings.Contains(note, "kleinbild tune") {
		t.Errorf("untuned device opened by name: note %q", note)
	}
	res, err := Tune(context.Background(), b, TuneOptions{Workloads: webgpu.TinyWorkloads(), Budget: 20 * time.Second, Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if note := UntunedNote(b); note != "" {
		t.Errorf("after tuning: note %q", note)
	}
	if b2, err := Open("webgpu:0"); err != nil {
		t.Error(err)
	} else {
		if note := UntunedNote(b2); note != "" {
			t.Errorf("opened by name after tuning: note %q", note)
		}
		b2.Close()
	}
	c := DefaultCPU()
	defer c.Close()
	if note := UntunedNote(c); note != "" {
		t.Errorf("CPU backend: note %q", note)
	}
	t.Logf("%s: GPU %.3g GFLOP/s, %s %.3g GFLOP/s on %s", res.Adapter, res.GPUGFLOPS, res.CPUName, res.CPUGFLOPS, res.Shape)
	if res.GPUGFLOPS <= 0 || res.CPUGFLOPS <= 0 || res.CPUName == "" {
		t.Fatalf("rates not measured: %+v", res)
	}
	ads, err := webgpu.AdapterDetails()
	if err != nil || len(ads) == 0 || !webgpu.TuningCurrent(ads[0]) {
		t.Errorf("after tuning, the cache of adapter 0 is not current (%v)", err)
	}
	checkCompareVulkan(t, b)
	for _, d := range Devices() {
		if d.ID != "webgpu:0" {
			continue
		}
		if d.GFLOPS != res.GPUGFLOPS || d.CPUGFLOPS != res.CPUGFLOPS {
			t.Errorf("Devices shows %g/%g GFLOP/s, tuning measured %g/%g", d.GFLOPS, d.CPUGFLOPS, res.GPUGFLOPS, res.CPUGFLOPS)
		}
		return
	}
	t.Error("webgpu:0 missing from Devices")
}

// TestDefaultNeedsTuning: never with $KLEINBILD_NO_TUNE=1 or a device override, and never
// for software adapters (the only ones on CI).
func TestDefaultNeedsTuning(t *testing.T) {
	t.Setenv(EnvNoTune, "1")
	if DefaultNeedsTuning() {
		t.Errorf("$%s=1 but DefaultNeedsTuning", EnvNoTune)
	}
	t.Setenv(EnvNoTune, "")
	t.Setenv(EnvBackend, "purego")
	if DefaultNeedsTuning() {
		t.Errorf("$%s=purego but DefaultNeedsTuning", EnvBackend)
	}
	t.Setenv(EnvBackend, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	real := false
	if ads, err := webgpu.AdapterDetails(); err == nil {
		for _, a := range ads {
			real = real || a.Info.Kind == gpu.KindDiscrete || a.Info.Kind == gpu.KindIntegrated
		}
	}
	if got := DefaultNeedsTuning(); got != real {
		t.Errorf("empty cache: DefaultNeedsTuning %v, real GPU present %v", got, real)
	}
}
