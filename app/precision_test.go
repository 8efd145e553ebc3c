package app

import (
	"kleinbild/app/galleryui"
	"kleinbild/app/modelui"

	"slices"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// unitDevices are a Vulkan card with matrix units and one without (lavapipe).
func unitDevices() []backends.Device {
	return []backends.Device{
		{ID: "purego", Backend: "purego", Auto: true, Info: gpu.DeviceInfo{Name: "Test CPU", Kind: gpu.KindCPU, API: "Go", MemoryBytes: 16e9}},
		{ID: "vulkan:0", Backend: "vulkan", MatrixUnits: "16×16×16 f16 cooperative matrices", Info: gpu.DeviceInfo{Name: "Test card", Kind: gpu.KindDiscrete, API: "Vulkan", MemoryBytes: 8e9}},
		{ID: "vulkan:1", Backend: "vulkan", Info: gpu.DeviceInfo{Name: "llvmpipe", Kind: gpu.KindSoftware, API: "Vulkan", MemoryBytes: 8e9}},
	}
}

// Issue 34 ("where the mode shows"): the device setting offers Exact and Fast (matrix
// units), enabled only on a device with matrix units, where fast is the default; the run
// opens the device in that precision, the image's metadata and the viewer's info name it,
// and a choice of Exact is remembered.
func TestPrecisionFollowsTheDeviceUnits(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.openDeviceSettings()
	u.model.Dev.List = unitDevices()
	u.model.RefreshDeviceSelect()
	sel, prec := u.model.Dev.Sel, u.model.Dev.Precision

	sel.SetSelected(unitDevices()[2].Label()) // no matrix units
	if !prec.Disabled() || prec.Selected != modelui.PrecisionExactLabel {
		t.Errorf("without matrix units the precision shows %q, disabled %v", prec.Selected, prec.Disabled())
	}
	sel.SetSelected(unitDevices()[1].Label())
	if prec.Disabled() || prec.Selected != modelui.PrecisionFastLabel {
		t.Errorf("with matrix units the precision shows %q, disabled %v; want fast by default", prec.Selected, prec.Disabled())
	}
	h.tapDialogButton("Close")
	out := h.generate("on the matrix units")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); !slices.Equal(got, []string{"vulkan:0+fast"}) {
		t.Errorf("opened on %q, want vulkan:0 in fast precision", got)
	}
	if out.Entry.Meta.Precision != "fast" || !strings.Contains(galleryui.DescribeEntry(out.Entry), "fast precision") {
		t.Errorf("metadata precision %q, info %q", out.Entry.Meta.Precision, galleryui.DescribeEntry(out.Entry))
	}

	h.openDeviceSettings()
	u.model.Dev.Precision.SetSelected(modelui.PrecisionExactLabel)
	if got := h.savedSettings().Precision; got != "exact" {
		t.Errorf("saved precision %q, want exact", got)
	}
	h.tapDialogButton("Close")
	out = h.generate("exact")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := fake.opened(); !slices.Equal(got, []string{"vulkan:0+fast", "vulkan:0"}) {
		t.Errorf("opened on %q, want a reopen on vulkan:0 in exact precision", got)
	}
	if out.Entry.Meta.Precision != "" || strings.Contains(galleryui.DescribeEntry(out.Entry), "precision") {
		t.Errorf("an exact image's metadata precision %q, info %q", out.Entry.Meta.Precision, galleryui.DescribeEntry(out.Entry))
	}
	h.close()

	h2 := newHarness(t, data, tinyModel(t), newFakeGen().open)
	h2.openDeviceSettings()
	h2.ui.model.Dev.List = unitDevices()
	h2.ui.model.RefreshDeviceSelect()
	if got := h2.ui.model.Dev.Precision; got.Selected != modelui.PrecisionExactLabel || got.Disabled() {
		t.Errorf("after a restart the precision shows %q (disabled %v), want Exact to choose from", got.Selected, got.Disabled())
	}
}

// A device ID and its precision go to the opener together and come apart again.
func TestPrecisionDeviceString(t *testing.T) {
	for _, c := range []struct {
		id string
		p  gpu.Precision
	}{{"vulkan:0", gpu.PrecisionFast}, {"vulkan:1", gpu.PrecisionExact}, {"", gpu.PrecisionFast}, {"webgpu:0", gpu.PrecisionExact}} {
		s := modelui.WithPrecision(c.id, c.p)
		if modelui.DeviceID(s) != c.id || modelui.PrecisionOf(s) != c.p {
			t.Errorf("%q %s: %q gives %q %s", c.id, c.p, s, modelui.DeviceID(s), modelui.PrecisionOf(s))
		}
	}
}
