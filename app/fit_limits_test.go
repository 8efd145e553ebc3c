package app

import (
	"strings"
	"testing"

	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// TestFitOnDeviceLimits: a GPU opened with 256 MiB buffers cannot run klein-4B at 512² (its
// 289.7 MB activation buffer): the fit line says so before the run; 256² fits.
func TestFitOnDeviceLimits(t *testing.T) {
	m, err := estimate.Preset("klein-4B", true)
	if err != nil {
		t.Fatal(err)
	}
	d := backends.Device{ID: "webgpu:0", Backend: "webgpu", Info: gpu.DeviceInfo{Name: "0x2335", Kind: gpu.KindDiscrete, MaxBufferBytes: 256 << 20, MaxBindingBytes: 2 << 30}}
	for _, c := range []struct {
		side int
		fits bool
	}{{256, true}, {512, false}} {
		req := estimate.Request{WidthPx: c.side, HeightPx: c.side}
		rep, err := estimate.Estimate(m, req, estimate.Machine{AvailableBytes: 64e9, TotalBytes: 64e9})
		if err != nil {
			t.Fatal(err)
		}
		got := onDeviceLimits(rep, m, req, d)
		if fits := got.Verdict != estimate.DoesNotFit; fits != c.fits || (!fits && !strings.Contains(got.Message, "256.0 MB per buffer")) {
			t.Errorf("%d²: %v %q", c.side, got.Verdict, got.Message)
		}
	}
}
