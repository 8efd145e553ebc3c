package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kleinbild/app/galleryui"
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

// Issue 34 ("where the mode shows"): on a device with matrix units, where fast is the
// default (the settings' select: modelui's TestPrecisionSelectFollowsTheDeviceUnits), the
// run opens the device in the fast precision and the image's metadata and the viewer's
// info name it; after a choice of Exact the model is reopened exact and nothing names it.
func TestPrecisionFollowsTheDeviceUnits(t *testing.T) {
	fake := newFakeGen()
	h := newHarness(t, t.TempDir(), tinyModel(t), fake.open)
	u := h.ui
	u.ctl.SetSize(64, 64)
	h.waitFor("the device probe", 5*time.Second, func() bool { return u.model.Dev.Probed })
	u.model.Dev.List = unitDevices()
	u.model.ChooseDevice("vulkan:0")
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

	u.Settings.Precision = string(gpu.PrecisionExact) // as the settings' select chooses it
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
}
