package modelui

import (
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// A device ID and its precision go to the opener together and come apart again.
func TestPrecisionDeviceString(t *testing.T) {
	for _, c := range []struct {
		id string
		p  gpu.Precision
	}{{"vulkan:0", gpu.PrecisionFast}, {"vulkan:1", gpu.PrecisionExact}, {"", gpu.PrecisionFast}, {"webgpu:0", gpu.PrecisionExact}} {
		s := WithPrecision(c.id, c.p)
		if DeviceID(s) != c.id || precisionOf(s) != c.p {
			t.Errorf("%q %s: %q gives %q %s", c.id, c.p, s, DeviceID(s), precisionOf(s))
		}
	}
}

// unitDevices are a Vulkan card with matrix units and one without (lavapipe).
func unitDevices() []backends.Device {
	return []backends.Device{
		{ID: "purego", Backend: "purego", Auto: true, Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "Go", MemoryBytes: 16e9}},
		{ID: "vulkan:0", Backend: "vulkan", MatrixUnits: "16×16×16 f16 cooperative matrices", Info: gpu.DeviceInfo{Name: "Test card", Kind: gpu.KindDiscrete, API: "Vulkan", MemoryBytes: 8e9}},
		{ID: "vulkan:1", Backend: "vulkan", Info: gpu.DeviceInfo{Name: "llvmpipe", Kind: gpu.KindSoftware, API: "Vulkan", MemoryBytes: 8e9}},
	}
}

// Issue 34 ("where the mode shows"): the device setting offers Exact and Fast (matrix
// units), enabled only on a device with matrix units, where fast is the default and the
// precision of the next run (which package app's TestPrecisionFollowsTheDeviceUnits opens
// and records); a choice of Exact is remembered.
func TestPrecisionSelectFollowsTheDeviceUnits(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data, tinyModel(t))
	m := h.m
	h.openDeviceSettings()
	m.Dev.List = unitDevices()
	m.refreshDeviceSelect()
	sel, prec := m.Dev.sel, m.Dev.precision

	sel.SetSelected(unitDevices()[2].Label()) // no matrix units
	if !prec.Disabled() || prec.Selected != precisionExactLabel {
		t.Errorf("without matrix units the precision shows %q, disabled %v", prec.Selected, prec.Disabled())
	}
	sel.SetSelected(unitDevices()[1].Label())
	if prec.Disabled() || prec.Selected != precisionFastLabel {
		t.Errorf("with matrix units the precision shows %q, disabled %v; want fast by default", prec.Selected, prec.Disabled())
	}
	if d, p := m.EffectiveDevice(), m.RunPrecision(); d != "vulkan:0" || p != gpu.PrecisionFast {
		t.Errorf("next run on %q in %s, want vulkan:0 in fast precision", d, p)
	}
	h.TapDialogButton("Close")

	h.openDeviceSettings()
	m.Dev.precision.SetSelected(precisionExactLabel)
	if got := h.savedSettings().Precision; got != "exact" {
		t.Errorf("saved precision %q, want exact", got)
	}
	if p := m.RunPrecision(); p != gpu.PrecisionExact {
		t.Errorf("next run in %s, want exact", p)
	}
	h.TapDialogButton("Close")
	h.close()

	h2 := newHarness(t, data, tinyModel(t))
	h2.openDeviceSettings()
	h2.m.Dev.List = unitDevices()
	h2.m.refreshDeviceSelect()
	if got := h2.m.Dev.precision; got.Selected != precisionExactLabel || got.Disabled() {
		t.Errorf("after a restart the precision shows %q (disabled %v), want Exact to choose from", got.Selected, got.Disabled())
	}
}
