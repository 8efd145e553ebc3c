package app

import (
	"kleinbild/app/modelui"

	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"kleinbild/app/settings"
	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// openDeviceSettings opens the model dialog and waits until the device select lists the
// probed devices.
func (h *harness) openDeviceSettings() {
	h.t.Helper()
	h.ui.ShowModelDialog()
	h.waitFor("the device list", 5*time.Second, func() bool {
		return h.ui.model.Dev.Sel != nil && len(h.ui.model.Dev.Sel.Options) > 0
	})
}

// savedSettings reads settings.json once the background writes are done.
func (h *harness) savedSettings() settings.Settings {
	h.t.Helper()
	var s settings.Settings
	h.waitFor("the settings to be saved", 5*time.Second, func() bool {
		got, ok, err := h.ui.Store.LoadSaved()
		if !ok {
			return false
		}
		s = got
		return err == nil
	})
	return s
}

// TestDeviceChoicePersistsAndReopens: the settings list every device with the automatic
// one first; choosing one saves it, reopens the model on it for the next generation,
// recalibrates for it, and survives a restart.
func TestDeviceChoicePersistsAndReopens(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	if out := h.generate("first"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); !slices.Equal(got, []string{""}) {
		t.Fatalf("opened on %q, want the automatic device \"\"", got)
	}

	h.openDeviceSettings()
	sel := u.model.Dev.Sel
	ds := fakeDevices()
	want := []string{"Automatic (" + ds[0].Label() + ")", ds[0].Label(), ds[1].Label(), ds[2].Label()}
	if !slices.Equal(sel.Options, want) {
		t.Fatalf("options %q, want %q", sel.Options, want)
	}
	if sel.Selected != want[0] {
		t.Errorf("selected %q, want %q", sel.Selected, want[0])
	}
	sel.SetSelected(ds[2].Label())
	if got := h.savedSettings().Device; got != "webgpu:0" {
		t.Errorf("saved device %q, want webgpu:0", got)
	}
	h.waitFor("calibration for the chosen device", 5*time.Second, func() bool { return u.fit.Device == "webgpu:0" })
	h.tapDialogButton("Close")

	if out := h.generate("second"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); !slices.Equal(got, []string{"", "webgpu:0"}) {
		t.Fatalf("opened on %q, want a reopen on webgpu:0", got)
	}
	if out := h.generate("third"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); len(got) != 2 {
		t.Errorf("the same device reopened the model: %q", got)
	}
	h.close()

	// After a restart the choice is still there.
	fake2 := newFakeGen()
	h2 := newHarness(t, data, tinyModel(t), fake2.open)
	h2.openDeviceSettings()
	if got := h2.ui.model.Dev.Sel.Selected; got != ds[2].Label() {
		t.Errorf("after restart the select shows %q, want %q", got, ds[2].Label())
	}
	// Automatic again.
	h2.ui.model.Dev.Sel.SetSelectedIndex(0)
	if got := h2.savedSettings().Device; got != "" {
		t.Errorf("saved device %q after choosing Automatic", got)
	}
}

// gpuGen fails every generation the way a WebGPU device does, wrapped by the engine.
type gpuGen struct{ err error }

func (g *gpuGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	progress(engine.Progress{Phase: engine.PhaseLoading})
	return nil, g.err
}

func (g *gpuGen) ComputeDevice() (string, gpu.DeviceInfo) {
	return "webgpu", gpu.DeviceInfo{Name: "Test GPU", Kind: gpu.KindDiscrete, API: "Vulkan"}
}

// TestGPUFailureFallsBackToCPU: a device error on the GPU says so in plain words, and the
// next run opens the model on the CPU while the saved choice stays; the settings show the
// fallback and can end it.
func TestGPUFailureFallsBackToCPU(t *testing.T) {
	data := t.TempDir()
	if err := settings.Save(filepath.Join(data, "settings.json"), settings.Settings{Device: "webgpu:0"}); err != nil {
		t.Fatal(err)
	}
	cpuGen := newFakeGen()
	var opened []string
	open := func(dir, device string) (Generator, error) {
		opened = append(opened, device) // the generating goroutine; runs never overlap
		if device == "webgpu:0" {
			return &gpuGen{err: fmt.Errorf("denoise step 1: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: device Test GPU lost: driver reset")))}, nil
		}
		return cpuGen.open(dir, device)
	}
	h := newHarness(t, data, tinyModel(t), open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.settle()

	out := h.generate("on the GPU")
	if out.Err == nil || !out.GPUFailed {
		t.Fatalf("outcome %+v: want a GPU failure", out)
	}
	msg := u.ErrorText()
	if !strings.HasPrefix(msg, "The GPU failed: ") || !strings.Contains(msg, "device Test GPU lost") ||
		!strings.HasSuffix(msg, "The next run uses the CPU.") {
		t.Errorf("banner %q", msg)
	}
	if u.model.EffectiveDevice() != backends.CPUID() {
		t.Errorf("next device %q, want the CPU", u.model.EffectiveDevice())
	}
	if got := h.savedSettings().Device; got != "webgpu:0" {
		t.Errorf("the saved choice changed to %q", got)
	}

	if out := h.generate("on the CPU"); out.Err != nil {
		t.Fatalf("CPU run: %v", out.Err)
	}
	if !slices.Equal(opened, []string{"webgpu:0", backends.CPUID()}) {
		t.Errorf("opened on %q, want webgpu:0 then cpu", opened)
	}

	h.openDeviceSettings()
	if got := u.model.Dev.Sel.Selected; got != fakeDevices()[2].Label() {
		t.Errorf("select shows %q, want the saved choice", got)
	}
	if !strings.Contains(u.model.Dev.Note.Text, "Using the CPU for now") || !u.model.Dev.Retry.Visible() {
		t.Errorf("note %q (retry visible %v): want the fallback explained", u.model.Dev.Note.Text, u.model.Dev.Retry.Visible())
	}
	test.Tap(findButton(u.model.Dev.Retry, "Try the GPU again"))
	if u.model.EffectiveDevice() != "webgpu:0" || u.model.Dev.Retry.Visible() {
		t.Errorf("after retry: device %q, retry visible %v", u.model.EffectiveDevice(), u.model.Dev.Retry.Visible())
	}
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
		{"CPU generator", lost, newFakeGen(), "", false},
		{"open failed on a GPU", fmt.Errorf("the model could not be opened: backends: open webgpu:0: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: no adapter"))), nil, "webgpu", true},
		{"a GPU's words without its error", errors.New("webgpu: device lost"), &gpuGen{}, "", false},
		{"open failed on the CPU", errors.New("the model could not be opened: vae: missing"), nil, "", false},
	}
	for _, c := range cases {
		if got := modelui.DeviceFailure(c.err, c.gen, c.gpuName); got != c.want {
			t.Errorf("%s: modelui.DeviceFailure = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFitLineUsesChosenDevice: choosing a GPU with too little memory turns the fit line
// into a warning naming it.
func TestFitLineUsesChosenDevice(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	m, err := estimate.Preset("klein-4B", true)
	if err != nil {
		t.Fatal(err)
	}
	u.fit.Model = &m
	u.fit.Machine = func(c estimate.Calibration) estimate.Machine {
		return estimate.Machine{AvailableBytes: 64e9, TotalBytes: 64e9, Rates: c}
	}
	u.ctl.SetSize(1024, 1024)
	h.settle()
	u.fit.Update()
	if txt := u.ctl.Fit.Text; !strings.HasPrefix(txt, "Fits") {
		t.Fatalf("fit line %q on the CPU", txt)
	}
	u.model.ChooseDevice("webgpu:0") // 8 GB in fakeDevices: klein-4B at 1024² needs more
	h.settle()
	u.fit.Update()
	if txt := u.ctl.Fit.Text; !strings.Contains(txt, "Does not fit on Test GPU") {
		t.Errorf("fit line %q on an 8 GB GPU", txt)
	}
}

// TestCalibrationPathPerDevice: each device keeps its own calibration file.
func TestCalibrationPathPerDevice(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	a, err := modelui.CalibrationPath(fakeBackend{name: "webgpu", info: gpu.DeviceInfo{Name: "NVIDIA H100 80GB HBM3"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := modelui.CalibrationPath(fakeBackend{name: "webgpu", info: gpu.DeviceInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)"}})
	c, _ := modelui.CalibrationPath(fakeBackend{name: "openblas", info: gpu.DeviceInfo{Name: "AMD EPYC"}})
	if filepath.Base(a) != "calibration-webgpu-nvidia-h100-80gb-hbm3.json" || a == b || b == c {
		t.Errorf("paths %s, %s, %s", a, b, c)
	}
	def, _ := estimate.DefaultCalibrationPath()
	if filepath.Dir(a) != filepath.Dir(def) {
		t.Errorf("%s is not beside %s", a, def)
	}
	if modelui.Slug("") != "device" || modelui.Slug("  Ä/B  ") != "b" {
		t.Errorf("slug: %q %q", modelui.Slug(""), modelui.Slug("  Ä/B  "))
	}
}

// fakeBackend is just enough gpu.Backend for modelui.CalibrationPath.
type fakeBackend struct {
	gpu.Backend
	name string
	info gpu.DeviceInfo
}

func (f fakeBackend) Name() string         { return f.name }
func (f fakeBackend) Info() gpu.DeviceInfo { return f.info }
