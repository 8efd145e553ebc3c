package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

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

// TestDeviceChoiceReopensTheModel: the device chosen (in the settings: modelui's
// TestDeviceChoicePersists) reopens the model on it for the next generation, and only
// then, and is recalibrated for.
func TestDeviceChoiceReopensTheModel(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	if out := h.generate("first"); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); !slices.Equal(got, []string{""}) {
		t.Fatalf("opened on %q, want the automatic device \"\"", got)
	}

	u.model.ChooseDevice("webgpu:0")
	h.waitFor("calibration for the chosen device", 5*time.Second, func() bool { return u.fit.Device == "webgpu:0" })

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
}

// TestGPUFailureFallsBackToCPU: a device error on the GPU says so in plain words, and the
// next run opens the model on the CPU while the saved choice stays (the settings show the
// fallback and can end it: modelui's TestGPUFallbackShownInSettings).
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
			return &uitest.GPUGen{Err: fmt.Errorf("denoise step 1: %w", gpu.NewDeviceError("webgpu", errors.New("webgpu: device Test GPU lost: driver reset")))}, nil
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
