package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestModelSetup: the setup guide shows until a usable model is chosen (the model button
// and report: modelui's TestModelButtonAndReport), Generate without one opens the model
// dialog, an incomplete folder is refused with the missing files named, and the folder is
// remembered.
func TestModelSetup(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	if !u.view.Setup.Visible() || u.view.Empty.Visible() {
		t.Fatal("without a model the setup guide should show")
	}
	test.Type(u.ctl.Prompt, "x")
	test.Tap(u.ctl.Generate)
	if u.run.Current() != nil || h.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Generate without a model should open the model dialog")
	}
	h.tapDialogButton("Close")

	// An incomplete folder is refused with the missing files named.
	partial := t.TempDir()
	os.WriteFile(filepath.Join(partial, "model_index.json"), []byte(`{"_class_name":"Flux2KleinPipeline","is_distilled":true}`), 0o644)
	err := u.SetModelDir(partial, true)
	if err == nil || !strings.Contains(u.ErrorText(), "transformer/diffusion_pytorch_model.safetensors") {
		t.Errorf("incomplete folder: %v, banner %q", err, u.ErrorText())
	}
	if !u.view.Setup.Visible() {
		t.Error("setup guide hidden for an unusable model")
	}

	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if u.ctl.Steps.Text != "4" || u.ctl.GuidanceBox.Visible() {
		t.Errorf("steps %q, guidance visible %v", u.ctl.Steps.Text, u.ctl.GuidanceBox.Visible())
	}
	if !u.view.Empty.Visible() || u.view.Setup.Visible() {
		t.Error("setup guide still shown with a usable model")
	}
	h.settle()
	h.close()

	// The folder is remembered.
	h2 := newHarness(t, data, "", fake.open)
	if h2.ui.model.ModelDir() != tinyModel(t) || !h2.ui.model.Usable() {
		t.Errorf("remembered model %q (usable %v)", h2.ui.model.ModelDir(), h2.ui.model.Usable())
	}
}
