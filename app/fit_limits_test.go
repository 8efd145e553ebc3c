package app

import (
	"strings"
	"testing"

	"kleinbild/gpu/backends"
)

// TestOverLimitsRunsOnTheCPU: when the fit line's dialog for a size over the GPU's limits
// sends the runs to the CPU (its UseCPU), the next runs use it and a banner says so, until
// a device is chosen. (The dialog itself, which offers the CPU only on the automatic device,
// is app/form's TestOverLimitsOffersTheCPU.)
func TestOverLimitsRunsOnTheCPU(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.fit.UseCPU("Does not fit on webgpu:0: 289.7 MB is more than 256.0 MB per buffer")
	h.settle()
	if u.model.EffectiveDevice() != backends.CPUID() || !strings.Contains(u.ErrorText(), "use the CPU") {
		t.Fatalf("automatic device: device %q, banner %q", u.model.EffectiveDevice(), u.ErrorText())
	}

	u.model.ChooseDevice("webgpu:0")
	h.settle()
	if u.model.EffectiveDevice() != "webgpu:0" {
		t.Errorf("a chosen GPU: device %q", u.model.EffectiveDevice())
	}
}
