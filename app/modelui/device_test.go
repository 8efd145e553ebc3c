package modelui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"

	"fyne.io/fyne/v2/test"
)

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
		{"GPU generator", lost, &uitest.GPUGen{}, "", true},
		{"GPU generator, other error", errors.New("reference image x.png cannot be read"), &uitest.GPUGen{}, "", false},
		{"GPU generator, cancelled", context.Canceled, &uitest.GPUGen{}, "", false},
		{"CPU generator", lost, cpuGen{}, "", false},
		{"open failed on a GPU", fmt.Errorf("the model could not be opened: backends: open webgpu:0: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: no adapter"))), nil, "webgpu", true},
		{"a GPU's words without its error", errors.New("webgpu: device lost"), &uitest.GPUGen{}, "", false},
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
			h.WaitFor("the device probe", 10*time.Second, func() bool { return h.m.Dev.Probed })
			h.Settle()
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

// TestDeviceChoicePersists: the settings list every device with the automatic one first;
// choosing one saves it and makes it the device of the next generation (which package
// app's TestDeviceChoiceReopensTheModel opens), and it survives a restart.
func TestDeviceChoicePersists(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data, tinyModel(t))
	m := h.m
	h.openDeviceSettings()
	sel := m.Dev.sel
	ds := uitest.FakeDevices()
	want := []string{"Automatic (" + ds[0].Label() + ")", ds[0].Label(), ds[1].Label(), ds[2].Label()}
	if !slices.Equal(sel.Options, want) {
		t.Fatalf("options %q, want %q", sel.Options, want)
	}
	if sel.Selected != want[0] {
		t.Errorf("selected %q, want %q", sel.Selected, want[0])
	}
	before := h.deviceChanged
	sel.SetSelected(ds[2].Label())
	if got := h.savedSettings().Device; got != "webgpu:0" {
		t.Errorf("saved device %q, want webgpu:0", got)
	}
	if m.EffectiveDevice() != "webgpu:0" || h.deviceChanged == before {
		t.Errorf("next device %q, DeviceChanged called %v: want webgpu:0 and a new estimate", m.EffectiveDevice(), h.deviceChanged != before)
	}
	h.TapDialogButton("Close")
	h.close()

	// After a restart the choice is still there.
	h2 := newHarness(t, data, tinyModel(t))
	h2.openDeviceSettings()
	if got := h2.m.Dev.sel.Selected; got != ds[2].Label() {
		t.Errorf("after restart the select shows %q, want %q", got, ds[2].Label())
	}
	// Automatic again.
	h2.m.Dev.sel.SetSelectedIndex(0)
	if got := h2.savedSettings().Device; got != "" {
		t.Errorf("saved device %q after choosing Automatic", got)
	}
}

// TestGPUFallbackShownInSettings: after a GPU failure (the runner's FallBackToCPU; package
// app's TestGPUFailureFallsBackToCPU) the banner says so in plain words and the next run
// uses the CPU while the saved choice stays; the settings show the fallback and can end it.
func TestGPUFallbackShownInSettings(t *testing.T) {
	data := t.TempDir()
	if err := settings.Save(filepath.Join(data, "settings.json"), settings.Settings{Device: "webgpu:0"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data, tinyModel(t))
	m := h.m
	err := fmt.Errorf("denoise step 1: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: device Test GPU lost: driver reset")))
	m.FallBackToCPU(err.Error())
	msg := h.sh.ErrorText()
	if !strings.HasPrefix(msg, "The GPU failed: ") || !strings.Contains(msg, "device Test GPU lost") ||
		!strings.HasSuffix(msg, "The next run uses the CPU.") {
		t.Errorf("banner %q", msg)
	}
	if m.EffectiveDevice() != backends.CPUID() || m.DeviceChoice() != "webgpu:0" {
		t.Errorf("next device %q (choice %q), want the CPU", m.EffectiveDevice(), m.DeviceChoice())
	}

	h.openDeviceSettings()
	if got := m.Dev.sel.Selected; got != uitest.FakeDevices()[2].Label() {
		t.Errorf("select shows %q, want the saved choice", got)
	}
	if !strings.Contains(m.Dev.note.Text, "Using the CPU for now") || !m.Dev.retry.Visible() {
		t.Errorf("note %q (retry visible %v): want the fallback explained", m.Dev.note.Text, m.Dev.retry.Visible())
	}
	test.Tap(uitest.FindButton(m.Dev.retry, "Try the GPU again"))
	if m.EffectiveDevice() != "webgpu:0" || m.Dev.retry.Visible() {
		t.Errorf("after retry: device %q, retry visible %v", m.EffectiveDevice(), m.Dev.retry.Visible())
	}
}
