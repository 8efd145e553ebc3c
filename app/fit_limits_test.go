package app

import (
	"strings"
	"testing"

	"kleinbild/estimate"
	"kleinbild/gpu/backends"
)

// TestOverLimitsRunsOnTheCPU: a size over the GPU's limits never starts on it. With the
// automatic device the dialog offers the CPU, which the next runs then use (a banner says
// so); on a GPU the user chose, it only explains and nothing runs.
func TestOverLimitsRunsOnTheCPU(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	rep := estimate.Report{Verdict: estimate.DoesNotFit, OverDeviceLimits: true,
		Message: "Does not fit on webgpu:0: 289.7 MB is more than 256.0 MB per buffer."}
	ran := 0
	u.fit.Ask(rep, true, rep.Message, "Generate", func() { ran++ })
	h.settle()
	h.tapDialogButton("Generate on the CPU")
	h.settle()
	if ran != 1 || u.model.EffectiveDevice() != backends.CPUID() || !strings.Contains(u.ErrorText(), "use the CPU") {
		t.Fatalf("automatic device: ran %d, device %q, banner %q", ran, u.model.EffectiveDevice(), u.ErrorText())
	}

	u.model.ChooseDevice("webgpu:0")
	h.settle()
	u.fit.Ask(rep, true, rep.Message, "Generate", func() { ran++ })
	h.settle()
	if top := h.win.Canvas().Overlays().Top(); top == nil || findButton(top, "Generate on the CPU") != nil || findButton(top, "Generate anyway") != nil {
		t.Fatal("a chosen GPU: the dialog should explain, with no way to run there")
	}
	if ran != 1 || u.model.EffectiveDevice() != "webgpu:0" {
		t.Errorf("a chosen GPU: ran %d, device %q", ran, u.model.EffectiveDevice())
	}
}
