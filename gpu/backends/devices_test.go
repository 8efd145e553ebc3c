package backends

import (
	"os"
	"strings"
	"testing"

	"kleinbild/gpu"
)

// TestDevices: every CPU backend is listed, exactly one device is Auto, and a software
// adapter is never the automatic choice.
func TestDevices(t *testing.T) {
	ds := Devices()
	auto := 0
	ids := map[string]bool{}
	for _, d := range ds {
		t.Logf("%s auto=%v", d.Label(), d.Auto)
		ids[d.ID] = true
		if d.Auto {
			auto++
			if d.Info.Kind == gpu.KindSoftware {
				t.Errorf("software adapter %s picked automatically", d.ID)
			}
		}
	}
	if auto != 1 {
		t.Errorf("%d devices marked Auto, want 1", auto)
	}
	if !ids["purego"] {
		t.Error("purego missing from Devices")
	}
	if os.Getenv(EnvBackend) == "" {
		b := Default()
		defer b.Close()
		for _, d := range ds {
			if d.Auto && d.Backend != b.Name() {
				t.Errorf("Default() is %s, Devices marks %s", b.Name(), d.ID)
			}
		}
	}
}

// TestOpenAdapterErrors: malformed adapter IDs fail with an error, never a panic.
func TestOpenAdapterErrors(t *testing.T) {
	for _, id := range []string{"webgpu:x", "webgpu:-1", "webgpu:999", "webgpu:"} {
		if b, err := Open(id); err == nil {
			b.Close()
			t.Errorf("Open(%q) succeeded", id)
		} else if !strings.Contains(err.Error(), "webgpu") {
			t.Errorf("Open(%q): %v does not name webgpu", id, err)
		}
	}
}

// TestDefaultFromEnv: with $KLEINBILD_BACKEND set (CI runs the golden tests so on WebGPU),
// Default really opens that backend instead of silently falling back to the CPU.
func TestDefaultFromEnv(t *testing.T) {
	id := os.Getenv(EnvBackend)
	if id == "" {
		t.Skip(EnvBackend + " not set")
	}
	b := Default()
	defer b.Close()
	want, _, _ := strings.Cut(id, ":")
	if !strings.EqualFold(b.Name(), want) {
		t.Fatalf("%s=%s but Default() is %s", EnvBackend, id, b.Name())
	}
}

// TestOpenWebGPURepeatedly: opening and closing the WebGPU backend many times in one process
// keeps working (lavapipe refused a new device now and then; webgpu.New starts over then).
func TestOpenWebGPURepeatedly(t *testing.T) {
	b, err := Open("webgpu")
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	b.Close()
	for i := 0; i < 20; i++ {
		b, err := Open("webgpu")
		if err != nil {
			t.Fatalf("open %d: %v", i+2, err)
		}
		b.Close()
	}
}

// TestLabelShowsMeasuredSpeeds: once tuning has measured a GPU against the CPU, its label
// (the app's device list) shows both rates; unmeasured devices show none.
func TestLabelShowsMeasuredSpeeds(t *testing.T) {
	d := Device{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "GPU", Kind: gpu.KindDiscrete, API: "Vulkan"}}
	if l := d.Label(); strings.Contains(l, "GFLOP/s") {
		t.Errorf("unmeasured device label %q shows a rate", l)
	}
	d.GFLOPS, d.CPUGFLOPS = 1234, 150
	if l := d.Label(); !strings.Contains(l, "1234 GFLOP/s (CPU 150)") {
		t.Errorf("measured device label %q does not show both rates", l)
	}
}
