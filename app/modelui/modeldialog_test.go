package modelui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/internal/testfix/metapng"
	"kleinbild/weights/golden"
)

// The golden GGUF, single-file and ComfyUI files of the tiny model (../shared/golden/gguf).
const (
	q8mixFile = "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"
	bflFlux   = "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors"
	sdcppFile = "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"
	teQ8File  = "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"
	bflVAE    = "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors"
	// tinyVAEGroups is the GroupNorm group count of the tiny model's VAE, which its weights
	// do not record (FLUX.2's is 32).
	tinyVAEGroups = 8
)

// comfyFolder builds a ComfyUI installation of the golden files (symlinks) and returns its
// models folder: both transformer files, the Q8_0 text encoder and the BFL autoencoder.
func comfyFolder(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ComfyUI", "models")
	for _, f := range []string{q8mixFile, bflFlux, teQ8File, bflVAE} {
		dst := filepath.Join(root, strings.TrimPrefix(f, "gguf/model/comfyui/"))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(golden.Path(t, f), dst); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// openForm opens the model dialog with the tiny VAE's group count and returns its form.
func openForm(t *testing.T, h *harness) *Form {
	t.Helper()
	h.m.Spec.VAEGroups = tinyVAEGroups
	h.m.ShowDialog()
	f := h.m.Form
	if f == nil {
		t.Fatal("no model form")
	}
	return f
}

// waitChecked waits until the form's latest check has ended and returns its status text.
func waitChecked(h *harness, f *Form) string {
	h.t.Helper()
	h.waitFor("the model check", 20*time.Second, func() bool { return !f.Checking.Visible() })
	h.settle()
	if len(f.Status.Segments) == 0 {
		h.t.Error("the status shows nothing")
	}
	return f.Report
}

// Issue 20: a single transformer file lacks the other parts, named in the dialog; files
// chosen for them complete it, with each part's quant types shown.
func TestModelSingleFileWithParts(t *testing.T) {
	h := newHarness(t, t.TempDir(), "")
	m := h.m
	sd := golden.Path(t, sdcppFile)
	if err := m.SetDir(sd, false); err == nil || !strings.Contains(h.sh.ErrorText(), "Text encoder") || !strings.Contains(h.sh.ErrorText(), "VAE") {
		t.Errorf("a lone transformer file: %v, banner %q", err, h.sh.ErrorText())
	}
	if !strings.Contains(m.Button.Text, "incomplete") {
		t.Errorf("model button %q", m.Button.Text)
	}
	f := openForm(t, h)
	f.Path.SetText(sd)
	st := waitChecked(h, f)
	if f.OK || !strings.Contains(st, "incomplete") || !strings.Contains(st, "Text encoder (choose a file") || !strings.Contains(st, "Q4_K x2") {
		t.Errorf("status %q (ok %v)", st, f.OK)
	}
	f.Parts[engine.TextEncoder].SetText(golden.Path(t, teQ8File))
	f.Parts[engine.VAE].SetText(golden.Path(t, bflVAE))
	st = waitChecked(h, f)
	if !f.OK || !strings.Contains(st, "✓") || !strings.Contains(st, "llama.cpp") || !strings.Contains(st, "Q8_0 x197") {
		t.Fatalf("completed: ok %v, status %q", f.OK, st)
	}
	// A damaged (truncated) file is refused with the reason.
	raw, err := os.ReadFile(sd)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "flux-2-klein-cut.gguf")
	if err := os.WriteFile(cut, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	f.Path.SetText(cut)
	st = waitChecked(h, f)
	if f.OK || !f.Use.Disabled() || !strings.Contains(st, "cannot be used") || !strings.Contains(st, "past the end of the file") {
		t.Errorf("truncated GGUF: ok %v, status %q", f.OK, st)
	}
	f.Path.SetText(sd)
	waitChecked(h, f)
	h.tapDialogButton("Use this model")
	h.settle()
	if m.Err != nil || len(m.Info.Files) != 3 || m.Spec.Path != sd {
		t.Errorf("model %+v: %v", m.Spec, m.Err)
	}
	if !strings.Contains(m.Button.Text, "distilled") {
		t.Errorf("model button %q", m.Button.Text)
	}
}

// Issue 20: a transformer file whose name does not tell distilled from base asks; the
// choice is used and remembered.
func TestModelVariantChoice(t *testing.T) {
	data := t.TempDir()
	raw, err := os.ReadFile(golden.Path(t, q8mixFile))
	if err != nil {
		t.Fatal(err)
	}
	anon := filepath.Join(t.TempDir(), "transformer.gguf")
	if err := os.WriteFile(anon, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data, "")
	m := h.m
	f := openForm(t, h)
	f.Path.SetText(tinyModel(t))
	f.Parts[engine.Transformer].SetText(anon)
	st := waitChecked(h, f)
	if !f.OK || !f.VariantBox.Visible() || !strings.Contains(st, "cannot be told") || f.Variant.Selected != VariantDistilledLabel {
		t.Fatalf("variant choice: ok %v, shown %v, selected %q, status %q", f.OK, f.VariantBox.Visible(), f.Variant.Selected, st)
	}
	f.Variant.SetSelected(VariantBaseLabel)
	waitChecked(h, f)
	if !f.OK || f.Res.Info.Distilled {
		t.Fatalf("base chosen: ok %v, distilled %v", f.OK, f.Res.Info.Distilled)
	}
	h.tapDialogButton("Use this model")
	h.settle()
	// The window shows the guidance for the base model that Changed reports
	// (TestNegativePromptField of package app).
	last := h.changes[len(h.changes)-1]
	guidance := !last.info.Distilled && last.usable
	if m.Info.Distilled || !guidance || !strings.Contains(m.Button.Text, "base") {
		t.Errorf("base model: button %q, guidance shown %v", m.Button.Text, guidance)
	}
	if h.sh.Settings.ModelVariant != "base" {
		t.Errorf("remembered variant %q", h.sh.Settings.ModelVariant)
	}
	// A file that tells (its name says klein) offers no choice.
	f = openForm(t, h)
	f.Parts[engine.Transformer].SetText(golden.Path(t, q8mixFile))
	waitChecked(h, f)
	if f.VariantBox.Visible() {
		t.Error("variant choice offered for a file that tells")
	}
}

// Issue 20: model folders and weight files dropped on the window go to the model dialog.
func TestModelDrop(t *testing.T) {
	comfy := comfyFolder(t)
	h := newHarness(t, t.TempDir(), "")
	m := h.m
	png := metapng.Write(t, t.TempDir(), "x.png", 8, 8, nil)
	if m.TakeDrop([]fyne.URI{storage.NewFileURI(png)}) || m.Form != nil {
		t.Fatal("an image drop was taken by the model dialog")
	}
	if !m.TakeDrop([]fyne.URI{storage.NewFileURI(comfy)}) || m.Form == nil {
		t.Fatal("a ComfyUI folder drop did not open the model dialog")
	}
	f := m.Form
	f.VAEGroups = tinyVAEGroups
	h.waitFor("the dropped folder", 10*time.Second, func() bool { return f.Path.Text == comfy })
	// A text encoder file replaces that part; a transformer file, while the model is a
	// folder, too.
	te, tr := golden.Path(t, teQ8File), golden.Path(t, sdcppFile)
	if !m.TakeDrop([]fyne.URI{storage.NewFileURI(te), storage.NewFileURI(tr)}) {
		t.Fatal("drop on the open dialog not taken")
	}
	h.waitFor("the dropped files", 10*time.Second, func() bool {
		return f.Parts[engine.TextEncoder].Text == te && f.Parts[engine.Transformer].Text == tr
	})
	st := waitChecked(h, f)
	if !f.OK || !strings.Contains(st, "flux-2-klein-tiny-q8_0-q4_k.gguf") {
		t.Errorf("after the drop: ok %v, status %q", f.OK, st)
	}
	// Something that is no model part is refused with its name.
	if !m.TakeDrop([]fyne.URI{storage.NewFileURI(png)}) {
		t.Fatal("drop on the open dialog not taken")
	}
	h.waitFor("the refusal", 10*time.Second, func() bool { return strings.Contains(strings.ToLower(h.sh.ErrorText()), "x.png is not") })
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
	h := newHarness(t, t.TempDir(), "")
	m := h.m

	// The model dialog: checking, then the problem instead of ✓.
	m.ShowDialog()
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
	m.SetDir(broken, true)
	h.waitFor("the background check", 10*time.Second, func() bool { return m.Err != nil })
	banner := h.sh.ErrorText()
	if !strings.Contains(banner, "vae/diffusion_pytorch_model.safetensors") || len(banner) > 240 {
		t.Errorf("banner %q", banner)
	}
	if strings.Contains(m.Button.Text, "distilled") {
		t.Errorf("model button %q", m.Button.Text)
	}

	// A good folder still passes.
	if err := m.SetDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if m.Err != nil {
		t.Errorf("tiny model: %v", m.Err)
	}
}

// Issue 36, item 21: a folder without any model file (only images) is said to hold no
// model files, not called an incomplete "· base" model; the header says it is unusable.
func TestModelFolderWithoutModelFiles(t *testing.T) {
	h := newHarness(t, t.TempDir(), "")
	pics := filepath.Join(t.TempDir(), "holiday")
	if err := os.MkdirAll(pics, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.png", "b.png"} {
		if err := os.WriteFile(filepath.Join(pics, n), []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := openForm(t, h)
	f.Path.SetText(pics)
	st := waitChecked(h, f)
	if f.OK || !strings.Contains(st, "holiday holds no model files") || strings.Contains(st, "incomplete") || strings.Contains(st, "base") {
		t.Errorf("folder of images: ok %v, report %q", f.OK, st)
	}
	h.tapDialogButton("Close")
	if err := h.m.SetDir(pics, false); err == nil || h.m.Button.Text != "Model unusable" {
		t.Errorf("folder of images as the model: %v, header %q", err, h.m.Button.Text)
	}
}

// Issue 36, item 21: a LoRA or LoKr file chosen as the model, or as its transformer, is
// named an adapter to add under Adapters, not refused with a tensor-name error.
func TestModelAdapterChosenAsModel(t *testing.T) {
	h := newHarness(t, t.TempDir(), "")
	f := openForm(t, h)
	for _, c := range []struct{ file, kind string }{
		{"lora_kohya_r2_a1.safetensors", "LoRA"}, {"lokr_lycoris_f4.safetensors", "LoKr"},
	} {
		p := golden.Path(t, "lora", "loras", c.file)
		f.Path.SetText(p)
		st := waitChecked(h, f)
		if f.OK || !strings.Contains(st, c.kind+" adapter") || !strings.Contains(st, "under Adapters") || strings.Contains(st, "tensor names") {
			t.Errorf("%s as the model: ok %v, report %q", c.file, f.OK, st)
		}
	}
	f.Path.SetText(tinyModel(t))
	f.Parts["transformer"].SetText(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if st := waitChecked(h, f); f.OK || !strings.Contains(st, "LoRA adapter") {
		t.Errorf("LoRA as the transformer: ok %v, report %q", f.OK, st)
	}
}

// Issue 36, item 21: the model dialog's texts speak to end users, never of the developers'
// tiny test model.
func TestModelDialogSpeaksToUsers(t *testing.T) {
	h := newHarness(t, t.TempDir(), "")
	f := openForm(t, h)
	var text string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.RichText:
			text += w.String() + "\n"
		case *widget.Label:
			text += w.Text + "\n"
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(w.Content)
		}
	}
	walk(f.Content)
	if !strings.Contains(text, "transformer file") {
		t.Fatalf("the walk missed the dialog's help: %s", text)
	}
	for _, bad := range []string{"tiny", "test model", "golden"} {
		if strings.Contains(strings.ToLower(text), bad) {
			t.Errorf("model dialog mentions %q: %s", bad, text)
		}
	}
}

// Issue 36 item 13 (the rest): Escape closes the Model dialog while its token field, the
// download's variant menu, its model combination or the device and precision menus have the
// focus (a focused select or password field took Escape and did nothing).
func TestEscapeClosesTheModelDialogFromItsMenus(t *testing.T) {
	h := newHarness(t, t.TempDir(), tinyModel(t))
	m := h.m
	c := h.win.Canvas()
	for i := 0; i < 5; i++ {
		h.openDeviceSettings()
		p := m.DLPanels[len(m.DLPanels)-1]
		f := []fyne.Focusable{p.Token, p.Variant, m.Form.Combo, m.Dev.Sel, m.Dev.Precision}[i]
		c.Focus(f)
		typeKey(c, fyne.KeyEscape)
		h.settle()
		if c.Overlays().Top() != nil || m.Dlg != nil {
			t.Errorf("Escape with %T (%d) focused left the Model dialog open", f, i)
			m.Dlg.Hide()
			h.settle()
		}
	}
}
