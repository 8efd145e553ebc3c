package app

import (
	"kleinbild/app/modelui"

	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
	"kleinbild/internal/sysmem"
)

func TestModelSetup(t *testing.T) {
	data := t.TempDir()
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	if !u.view.Setup.Visible() || u.view.Empty.Visible() {
		t.Fatal("without a model the setup guide should show")
	}
	if !strings.Contains(u.model.Button.Text, "No model") {
		t.Errorf("model button %q", u.model.Button.Text)
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
	md := modelui.SourceReport(u.model.Info, u.model.Err, sysmem.Status{}, false)
	if !strings.Contains(md, "Missing") || !strings.Contains(md, "`vae/config.json`") {
		t.Errorf("model report %q", md)
	}

	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(u.model.Button.Text, "distilled") || u.ctl.Steps.Text != "4" || u.ctl.GuidanceBox.Visible() {
		t.Errorf("model button %q, steps %q, guidance visible %v", u.model.Button.Text, u.ctl.Steps.Text, u.ctl.GuidanceBox.Visible())
	}
	if !u.view.Empty.Visible() || u.view.Setup.Visible() {
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

// brokenVAEModel copies the tiny model with its VAE weights cut in half.
func brokenVAEModel(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "broken")
	if err := os.CopyFS(dir, os.DirFS(tinyModel(t))); err != nil {
		t.Fatal(err)
	}
	vae := filepath.Join(dir, "vae", "diffusion_pytorch_model.safetensors")
	st, err := os.Stat(vae)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(vae, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 12, defect 5: a folder with a truncated VAE is found out when it is chosen, not at
// Generate, with a short message naming the file.
func TestModelFolderCheckedWhenChosen(t *testing.T) {
	broken := brokenVAEModel(t)
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	u := h.ui

	// The model dialog: checking, then the problem instead of ✓.
	u.ShowModelDialog()
	top := h.win.Canvas().Overlays().Top()
	var path *widget.Entry
	var find func(o fyne.CanvasObject)
	find = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widgets.EscapeEntry:
			if path == nil && strings.Contains(v.PlaceHolder, "Model folder") {
				path = &v.Entry
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				find(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				find(c)
			}
		}
	}
	find(top)
	if path == nil {
		t.Fatal("no model folder entry in the dialog")
	}
	path.SetText(broken)
	use := findButton(top, "Use this model")
	h.waitFor("the check in the dialog", 10*time.Second, func() bool {
		return findRichText(top, "damaged") != nil
	})
	if findRichText(top, "✓") != nil || !use.Disabled() {
		t.Errorf("dialog shows ✓ (or allows use) for a truncated VAE")
	}
	if rt := findRichText(top, "damaged"); len(rt.String()) > 200 || !strings.Contains(rt.String(), "vae/diffusion_pytorch_model.safetensors") {
		t.Errorf("message too long: %q", rt.String())
	}
	h.tapDialogButton("Close")

	// Choosing it directly (setup page, remembered folder): found in the background.
	u.SetModelDir(broken, true)
	h.waitFor("the background check", 10*time.Second, func() bool { return u.model.Err != nil })
	banner := u.ErrorText()
	if !strings.Contains(banner, "vae/diffusion_pytorch_model.safetensors") || len(banner) > 240 {
		t.Errorf("banner %q", banner)
	}
	if strings.Contains(u.model.Button.Text, "distilled") {
		t.Errorf("model button %q", u.model.Button.Text)
	}

	// A good folder still passes.
	if err := u.SetModelDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if u.model.Err != nil {
		t.Errorf("tiny model: %v", u.model.Err)
	}
}
