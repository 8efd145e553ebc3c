package modelui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// gpuGen fails every generation the way a WebGPU device does, wrapped by the engine.
type gpuGen struct{ err error }

func (g *gpuGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	progress(engine.Progress{Phase: engine.PhaseLoading})
	return nil, g.err
}

func (g *gpuGen) ComputeDevice() (string, gpu.DeviceInfo) {
	return "webgpu", gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan"}
}

// cpuGen is a Generator that reports no device (package app's fake generator).
type cpuGen struct{}

func (cpuGen) Generate(context.Context, engine.Request, func(engine.Progress)) (*engine.Result, error) {
	return nil, errors.New("cpuGen generates nothing")
}

// TestCPUErrorsDoNotFallBack: only errors of a GPU backend switch to the CPU.
func TestCPUErrorsDoNotFallBack(t *testing.T) {
	lost := gpu.NewDeviceError("webgpu", errors.New("webgpu: device lost"))
	cases := []struct {
		name    string
		err     error
		gen     Generator
		gpuName string
		want    bool
	}{
		{"GPU generator", lost, &gpuGen{}, "", true},
		{"GPU generator, other error", errors.New("reference image x.png cannot be read"), &gpuGen{}, "", false},
		{"GPU generator, cancelled", context.Canceled, &gpuGen{}, "", false},
		{"CPU generator", lost, cpuGen{}, "", false},
		{"open failed on a GPU", fmt.Errorf("the model could not be opened: backends: open webgpu:0: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: no adapter"))), nil, "webgpu", true},
		{"a GPU's words without its error", errors.New("webgpu: device lost"), &gpuGen{}, "", false},
		{"open failed on the CPU", errors.New("the model could not be opened: vae: missing"), nil, "", false},
	}
	for _, c := range cases {
		if got := DeviceFailure(c.err, c.gen, c.gpuName); got != c.want {
			t.Errorf("%s: DeviceFailure = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCalibrationPathPerDevice: each device keeps its own calibration file.
func TestCalibrationPathPerDevice(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	a, err := CalibrationPath(fakeBackend{name: "webgpu", info: gpu.DeviceInfo{Name: "NVIDIA H100 80GB HBM3"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CalibrationPath(fakeBackend{name: "webgpu", info: gpu.DeviceInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)"}})
	c, _ := CalibrationPath(fakeBackend{name: "openblas", info: gpu.DeviceInfo{Name: "AMD EPYC"}})
	if filepath.Base(a) != "calibration-webgpu-nvidia-h100-80gb-hbm3.json" || a == b || b == c {
		t.Errorf("paths %s, %s, %s", a, b, c)
	}
	def, _ := estimate.DefaultCalibrationPath()
	if filepath.Dir(a) != filepath.Dir(def) {
		t.Errorf("%s is not beside %s", a, def)
	}
	if Slug("") != "device" || Slug("  Ä/B  ") != "b" {
		t.Errorf("slug: %q %q", Slug(""), Slug("  Ä/B  "))
	}
}

// fakeBackend is just enough gpu.Backend for CalibrationPath.
type fakeBackend struct {
	gpu.Backend
	name string
	info gpu.DeviceInfo
}

func (f fakeBackend) Name() string         { return f.name }
func (f fakeBackend) Info() gpu.DeviceInfo { return f.info }

// TestBadEnvBackendNotice: a $KLEINBILD_BACKEND that names no device (issue 23 item 11) is
// not ignored without a word in the window either: once the devices are probed the banner
// names the value and the device used instead. A device of the list (an ID or a backend
// name, any case) or "default" gives no notice.
func TestBadEnvBackendNotice(t *testing.T) {
	for _, tc := range []struct {
		env  string
		warn bool
	}{
		{"garbage", true},
		{"webgpu:99", true},
		{" webgpu:7 ", true},
		{"WEBGPU:0", false},
		{"webgpu", false},
		{"openblas", false},
		{"default", false},
		{"", false},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(backends.EnvBackend, tc.env)
			h := newHarness(t, t.TempDir(), tinyModel(t))
			h.waitFor("the device probe", 10*time.Second, func() bool { return h.m.Dev.Probed })
			h.settle()
			b := h.sh.ErrorText()
			if !tc.warn {
				if strings.Contains(b, backends.EnvBackend) {
					t.Errorf("banner %q", b)
				}
				return
			}
			want := `$KLEINBILD_BACKEND="` + strings.TrimSpace(tc.env) + `"`
			if !strings.Contains(b, want) || !strings.Contains(b, "using openblas — Test CPU") {
				t.Errorf("banner %q, want %s and the device used instead", b, want)
			}
		})
	}
}
