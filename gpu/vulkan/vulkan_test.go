package vulkan

import (
	"errors"
	"flag"
	"os"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

var logErrors = flag.Bool("errors", false, "log rel-L2 and max abs error of every comparison")

// open returns a backend on the best device, skipping the test when Vulkan is missing unless
// KLEINBILD_REQUIRE_VULKAN=1 (CI, with Mesa's lavapipe installed).
func openTest(t *testing.T) gpu.Backend {
	t.Helper()
	b, err := New(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatalf("KLEINBILD_REQUIRE_VULKAN=1 but: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// TestConformance runs the conformance suite (every op) on the best device: lavapipe in CI.
func TestConformance(t *testing.T) {
	b := openTest(t)
	gputest.Run(t, b, gputest.Options{Short: testing.Short(), LogErrors: *logErrors, Quant: QuantTypes()})
}

// TestDevices lists the devices with complete descriptions.
func TestDevices(t *testing.T) {
	infos, err := Devices()
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	for i, in := range infos {
		t.Logf("device %d: %+v", i, in)
		if in.Name == "" || in.API != "Vulkan" || in.Kind == "" || in.MaxBindingBytes <= 0 || in.MaxBufferBytes <= 0 {
			t.Errorf("device %d: incomplete description %+v", i, in)
		}
	}
	if _, err := New(Options{Device: len(infos)}); err == nil {
		t.Errorf("New(Device: %d) of %d devices succeeded", len(infos), len(infos))
	}
}

// Issue 35: the backend's errors are *gpu.DeviceError (the app falls back to the CPU on
// them), from an op (Flush), Read and Alloc alike.
func TestErrorsAreDeviceErrors(t *testing.T) {
	b := openTest(t)
	x, err := b.Alloc(gpu.F32, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(x)
	b.SiLU(x, gpu.Tensor{}) // a missing input fails the op; Flush reports it
	for name, err := range map[string]error{
		"Flush": b.Flush(),
		"Read":  b.Read(make([]float32, 3), x),
		"Alloc": func() error { _, err := b.Alloc(gpu.F32, -1); return err }(),
	} {
		var de *gpu.DeviceError
		if !errors.As(err, &de) || de.Backend != "vulkan" {
			t.Errorf("%s: %v (%T) is not a vulkan *gpu.DeviceError", name, err, err)
		}
	}
}
