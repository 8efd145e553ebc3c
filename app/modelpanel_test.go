package app

import (
	"kleinbild/app/modelui"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"kleinbild/internal/sysmem"
)

func TestModelSetup(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	if !u.view.setup.Visible() || u.view.empty.Visible() {
		t.Fatal("without a model the setup guide should show")
	}
	if !strings.Contains(u.model.Button.Text, "No model") {
		t.Errorf("model button %q", u.model.Button.Text)
	}
	test.Type(u.ctl.prompt, "x")
	test.Tap(u.ctl.generate)
	if u.run.cur != nil || h.win.Canvas().Overlays().Top() == nil {
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
	if !u.view.setup.Visible() {
		t.Error("setup guide hidden for an unusable model")
	}
	md := modelui.SourceReport(u.model.Info, u.model.Err, sysmem.Status{}, false)
	if !strings.Contains(md, "Missing") || !strings.Contains(md, "`vae/config.json`") {
		t.Errorf("model report %q", md)
	}

	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(u.model.Button.Text, "distilled") || u.ctl.steps.Text != "4" || u.ctl.guidanceBox.Visible() {
		t.Errorf("model button %q, steps %q, guidance visible %v", u.model.Button.Text, u.ctl.steps.Text, u.ctl.guidanceBox.Visible())
	}
	if !u.view.empty.Visible() || u.view.setup.Visible() {
		t.Error("setup guide still shown with a usable model")
	}
	md = modelui.SourceReport(u.model.Info, nil, sysmem.Status{Bytes: 1000, Known: true}, false)
	if !strings.Contains(md, "distilled") || !strings.Contains(md, "larger than the memory available") {
		t.Errorf("model report %q", md)
	}
	h.settle()
	h.close()

	// The folder is remembered.
	h2 := newHarness(t, data, "", fake.open)
	if h2.ui.model.Dir != tinyModel(t) || h2.ui.model.Err != nil {
		t.Errorf("remembered model %q (%v)", h2.ui.model.Dir, h2.ui.model.Err)
	}
}
