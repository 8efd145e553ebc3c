package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kleinbild/app/fserr"
	"kleinbild/engine"
)

// Issue 28 item 10: a missing model folder is said in plain words, not as Go's "stat …: no
// such file or directory", in the banner (in the model settings: modelui's
// TestMissingFolderInPlainWords).
func TestMissingFolderInPlainWords(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := engine.OpenModelSource(missing, engine.Overrides{})
	if err == nil {
		t.Fatal("a missing folder opened")
	}
	if msg := fserr.Friendly(err); strings.Contains(msg, "stat ") || !strings.Contains(msg, missing+" does not exist") {
		t.Errorf("friendlyText: %q", msg)
	}
	h := newHarness(t, t.TempDir(), "", nil)
	_, err = os.Stat(missing)
	h.ui.ShowError(err)
	if msg := h.ui.ErrorText(); strings.Contains(msg, "stat ") || !strings.Contains(msg, "does not exist") {
		t.Errorf("banner %q", msg)
	}
}

// Issue 28 item 10: the fit line says it counts the adapters switched on.
func TestFitLineCountsAdapters(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t), newFakeGen().open)
	u := h.ui
	u.ctl.Prompt.SetText("a lighthouse")
	h.addAdapter(goldenLoRA(t, "lora_kohya_r2_a1.safetensors"))
	h.waitFor("the fit line with the adapter", 10*time.Second, func() bool {
		return strings.Contains(u.ctl.Fit.Text, "1 adapter included")
	})
	findCheck(h.win.Canvas().Content(), "lora_kohya").SetChecked(false)
	h.waitFor("the fit line without it", 10*time.Second, func() bool {
		return u.ctl.Fit.Text != "" && !strings.Contains(u.ctl.Fit.Text, "adapter")
	})
}
