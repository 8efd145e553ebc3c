package modelui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"kleinbild/app/internal/uitest"
	"kleinbild/app/settings"
	"kleinbild/app/widgets"
	"kleinbild/engine"
	"kleinbild/internal/sysmem"
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
func openForm(t *testing.T, h *harness) *modelForm {
	t.Helper()
	h.m.spec.vaeGroups = tinyVAEGroups
	h.m.ShowDialog()
	f := h.m.Form
	if f == nil {
		t.Fatal("no model form")
	}
	return f
}

// waitChecked waits until the form's latest check has ended and returns its status text.
func waitChecked(h *harness, f *modelForm) string {
	h.t.Helper()
	h.WaitFor("the model check", 20*time.Second, func() bool { return !f.checking.Visible() })
	h.Settle()
	if len(f.status.Segments) == 0 {
		h.t.Error("the status shows nothing")
	}
	return f.report
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
	if !strings.Contains(m.button.Text, "incomplete") {
		t.Errorf("model button %q", m.button.Text)
	}
	f := openForm(t, h)
	f.Path.SetText(sd)
	st := waitChecked(h, f)
	if f.ok || !strings.Contains(st, "incomplete") || !strings.Contains(st, "Text encoder (choose a file") || !strings.Contains(st, "Q4_K x2") {
		t.Errorf("status %q (ok %v)", st, f.ok)
	}
	f.parts[engine.TextEncoder].SetText(golden.Path(t, teQ8File))
	f.parts[engine.VAE].SetText(golden.Path(t, bflVAE))
	st = waitChecked(h, f)
	if !f.ok || !strings.Contains(st, "✓") || !strings.Contains(st, "llama.cpp") || !strings.Contains(st, "Q8_0 x197") {
		t.Fatalf("completed: ok %v, status %q", f.ok, st)
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
	if f.ok || !f.use.Disabled() || !strings.Contains(st, "cannot be used") || !strings.Contains(st, "past the end of the file") {
		t.Errorf("truncated GGUF: ok %v, status %q", f.ok, st)
	}
	f.Path.SetText(sd)
	waitChecked(h, f)
	h.TapDialogButton("Use this model")
	h.Settle()
	if m.err != nil || len(m.info.Files) != 3 || m.spec.path != sd {
		t.Errorf("model %+v: %v", m.spec, m.err)
	}
	if !strings.Contains(m.button.Text, "distilled") {
		t.Errorf("model button %q", m.button.Text)
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
	f.parts[engine.Transformer].SetText(anon)
	st := waitChecked(h, f)
	if !f.ok || !f.variantBox.Visible() || !strings.Contains(st, "cannot be told") || f.variant.Selected != variantDistilledLabel {
		t.Fatalf("variant choice: ok %v, shown %v, selected %q, status %q", f.ok, f.variantBox.Visible(), f.variant.Selected, st)
	}
	f.variant.SetSelected(variantBaseLabel)
	waitChecked(h, f)
	if !f.ok || f.res.info.Distilled {
		t.Fatalf("base chosen: ok %v, distilled %v", f.ok, f.res.info.Distilled)
	}
	h.TapDialogButton("Use this model")
	h.Settle()
	// The window shows the guidance for the base model that Changed reports
	// (TestNegativePromptField of package app).
	last := h.changes[len(h.changes)-1]
	guidance := !last.info.Distilled && last.usable
	if m.info.Distilled || !guidance || !strings.Contains(m.button.Text, "base") {
		t.Errorf("base model: button %q, guidance shown %v", m.button.Text, guidance)
	}
	if h.sh.Settings.ModelVariant != "base" {
		t.Errorf("remembered variant %q", h.sh.Settings.ModelVariant)
	}
	// A file that tells (its name says klein) offers no choice.
	f = openForm(t, h)
	f.parts[engine.Transformer].SetText(golden.Path(t, q8mixFile))
	waitChecked(h, f)
	if f.variantBox.Visible() {
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
	f.vaeGroups = tinyVAEGroups
	h.WaitFor("the dropped folder", 10*time.Second, func() bool { return f.Path.Text == comfy })
	// A text encoder file replaces that part; a transformer file, while the model is a
	// folder, too.
	te, tr := golden.Path(t, teQ8File), golden.Path(t, sdcppFile)
	if !m.TakeDrop([]fyne.URI{storage.NewFileURI(te), storage.NewFileURI(tr)}) {
		t.Fatal("drop on the open dialog not taken")
	}
	h.WaitFor("the dropped files", 10*time.Second, func() bool {
		return f.parts[engine.TextEncoder].Text == te && f.parts[engine.Transformer].Text == tr
	})
	st := waitChecked(h, f)
	if !f.ok || !strings.Contains(st, "flux-2-klein-tiny-q8_0-q4_k.gguf") {
		t.Errorf("after the drop: ok %v, status %q", f.ok, st)
	}
	// Something that is no model part is refused with its name.
	if !m.TakeDrop([]fyne.URI{storage.NewFileURI(png)}) {
		t.Fatal("drop on the open dialog not taken")
	}
	h.WaitFor("the refusal", 10*time.Second, func() bool { return strings.Contains(strings.ToLower(h.sh.ErrorText()), "x.png is not") })
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
	use := uitest.FindButton(top, "Use this model")
	h.WaitFor("the check in the dialog", 10*time.Second, func() bool {
		return uitest.FindRichText(top, "damaged") != nil
	})
	if uitest.FindRichText(top, "✓") != nil || !use.Disabled() {
		t.Errorf("dialog shows ✓ (or allows use) for a truncated VAE")
	}
	if rt := uitest.FindRichText(top, "damaged"); len(rt.String()) > 200 || !strings.Contains(rt.String(), "vae/diffusion_pytorch_model.safetensors") {
		t.Errorf("message too long: %q", rt.String())
	}
	h.TapDialogButton("Close")

	// Choosing it directly (setup page, remembered folder): found in the background.
	m.SetDir(broken, true)
	h.WaitFor("the background check", 10*time.Second, func() bool { return m.err != nil })
	banner := h.sh.ErrorText()
	if !strings.Contains(banner, "vae/diffusion_pytorch_model.safetensors") || len(banner) > 240 {
		t.Errorf("banner %q", banner)
	}
	if strings.Contains(m.button.Text, "distilled") {
		t.Errorf("model button %q", m.button.Text)
	}

	// A good folder still passes.
	if err := m.SetDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	h.Settle()
	if m.err != nil {
		t.Errorf("tiny model: %v", m.err)
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
	if f.ok || !strings.Contains(st, "holiday holds no model files") || strings.Contains(st, "incomplete") || strings.Contains(st, "base") {
		t.Errorf("folder of images: ok %v, report %q", f.ok, st)
	}
	h.TapDialogButton("Close")
	if err := h.m.SetDir(pics, false); err == nil || h.m.button.Text != "Model unusable" {
		t.Errorf("folder of images as the model: %v, header %q", err, h.m.button.Text)
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
		if f.ok || !strings.Contains(st, c.kind+" adapter") || !strings.Contains(st, "under Adapters") || strings.Contains(st, "tensor names") {
			t.Errorf("%s as the model: ok %v, report %q", c.file, f.ok, st)
		}
	}
	f.Path.SetText(tinyModel(t))
	f.parts["transformer"].SetText(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if st := waitChecked(h, f); f.ok || !strings.Contains(st, "LoRA adapter") {
		t.Errorf("LoRA as the transformer: ok %v, report %q", f.ok, st)
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
	walk(f.content)
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
		p := m.dlPanels[len(m.dlPanels)-1]
		f := []fyne.Focusable{p.token, p.variant, m.Form.combo, m.Dev.sel, m.Dev.precision}[i]
		c.Focus(f)
		uitest.TypeKey(c, fyne.KeyEscape)
		h.Settle()
		if c.Overlays().Top() != nil || m.Dlg != nil {
			t.Errorf("Escape with %T (%d) focused left the Model dialog open", f, i)
			m.Dlg.Hide()
			h.Settle()
		}
	}
}

func partFile(info engine.ModelInfo, c engine.Component) engine.PartFile {
	for _, f := range info.Files {
		if f.Component == c {
			return f
		}
	}
	return engine.PartFile{}
}

// Issue 20: a ComfyUI models folder shows its usable combinations; the one picked is what
// the model uses (and what package app's TestComfyUIModelFitAndMetadata fits and writes
// into the images' metadata), its quant types are shown, and it is remembered.
func TestModelDialogComfyUI(t *testing.T) {
	data := t.TempDir()
	comfy := comfyFolder(t)
	h := newHarness(t, data, "")
	f := openForm(t, h)
	f.Path.SetText(filepath.Dir(comfy)) // the installation: its models/ folder is found
	st := waitChecked(h, f)
	if !f.ok || !f.comboBox.Visible() || len(f.combo.Options) != 2 {
		t.Fatalf("ComfyUI folder: ok %v, combinations shown %v %q; status %q", f.ok, f.comboBox.Visible(), f.combo.Options, st)
	}
	// The GGUF transformer is the first choice, with its quant types and format.
	for _, want := range []string{"flux-2-klein-tiny-Q8_0-mix.gguf", "qwen3-tiny-Q8_0.gguf", "flux2-ae-tiny.safetensors", "Q8_0 x", "GGUF", "distilled"} {
		if !strings.Contains(st, want) {
			t.Errorf("status lacks %q: %q", want, st)
		}
	}
	if !strings.Contains(f.combo.Selected, "Q8_0-mix.gguf") {
		t.Errorf("selected combination %q", f.combo.Selected)
	}
	ggufBytes := f.res.src.WeightBytes(engine.Transformer)

	// Pick the BF16 single file.
	i := slices.IndexFunc(f.combo.Options, func(s string) bool { return strings.HasPrefix(s, "flux-2-klein-tiny.safetensors") })
	if i < 0 {
		t.Fatalf("combinations %q", f.combo.Options)
	}
	f.combo.SetSelected(f.combo.Options[i])
	st = waitChecked(h, f)
	if !f.ok || !strings.Contains(st, "BF16 x") || strings.Contains(st, "Q8_0-mix") {
		t.Fatalf("after picking the single file: ok %v, status %q", f.ok, st)
	}
	src := f.res.src
	h.TapDialogButton("Use this model")
	h.Settle()
	m := h.m
	if m.err != nil || m.src != src || m.Dlg != nil {
		t.Fatalf("model after Use: err %v, same source %v", m.err, m.src == src)
	}
	if got := partFile(m.info, engine.Transformer).Path; filepath.Base(got) != "flux-2-klein-tiny.safetensors" {
		t.Errorf("transformer in use %q", got)
	}
	if m.spec.path != filepath.Dir(comfy) || filepath.Base(m.spec.transformer) != "flux-2-klein-tiny.safetensors" || filepath.Base(m.spec.textEncoder) != "qwen3-tiny-Q8_0.gguf" {
		t.Errorf("spec %+v", m.spec)
	}
	// The fit line reads the model's sizes from the same Source: the single file's, not
	// the GGUF's.
	if got := m.UsableSource().WeightBytes(engine.Transformer); got != src.WeightBytes(engine.Transformer) || got == ggufBytes {
		t.Errorf("the source's transformer bytes %d, want %d (GGUF's %d)", got, src.WeightBytes(engine.Transformer), ggufBytes)
	}
	h.Settle()
	h.close()

	// Remembered: the next start uses the same files.
	set, err := settings.Load(filepath.Join(data, "settings.json"))
	if err != nil || filepath.Base(set.ModelTransformer) != "flux-2-klein-tiny.safetensors" || set.ModelVAEGroups != tinyVAEGroups {
		t.Errorf("settings %+v (%v)", set, err)
	}
	h2 := newHarness(t, data, "")
	m2 := h2.m
	if m2.err != nil || m2.spec != m.spec || filepath.Base(partFile(m2.info, engine.Transformer).Path) != "flux-2-klein-tiny.safetensors" {
		t.Errorf("after a restart: spec %+v, err %v", m2.spec, m2.err)
	}
	// The dialog shows the remembered combination.
	f2 := openForm(t, h2)
	waitChecked(h2, f2)
	if !strings.HasPrefix(f2.combo.Selected, "flux-2-klein-tiny.safetensors") || !f2.ok {
		t.Errorf("remembered combination shown as %q (ok %v)", f2.combo.Selected, f2.ok)
	}
}

// TestModelButtonAndReport: the header's model button says whether a model is chosen and
// what it is; the model report names the files an incomplete folder misses and warns when
// the model is larger than the memory; the folder is remembered. (Package app's
// TestModelSetup: the setup guide and the form around them.)
func TestModelButtonAndReport(t *testing.T) {
	data := t.TempDir()
	h := newHarness(t, data, "")
	m := h.m
	if !strings.Contains(m.button.Text, "No model") {
		t.Errorf("model button %q", m.button.Text)
	}

	partial := t.TempDir()
	os.WriteFile(filepath.Join(partial, "model_index.json"), []byte(`{"_class_name":"Flux2KleinPipeline","is_distilled":true}`), 0o644)
	err := m.SetDir(partial, true)
	if err == nil || !strings.Contains(h.sh.ErrorText(), "transformer/diffusion_pytorch_model.safetensors") {
		t.Errorf("incomplete folder: %v, banner %q", err, h.sh.ErrorText())
	}
	md := sourceReport(m.info, m.err, sysmem.Status{}, false)
	if !strings.Contains(md, "Missing") || !strings.Contains(md, "`vae/config.json`") {
		t.Errorf("model report %q", md)
	}

	if err := m.SetDir(tinyModel(t), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.button.Text, "distilled") {
		t.Errorf("model button %q", m.button.Text)
	}
	md = sourceReport(m.info, nil, sysmem.Status{Bytes: 1000, Known: true}, false)
	if !strings.Contains(md, "distilled") || !strings.Contains(md, "larger than the memory available") {
		t.Errorf("model report %q", md)
	}
	h.Settle()
	h.close()

	// The folder is remembered.
	h2 := newHarness(t, data, "")
	if h2.m.dir != tinyModel(t) || h2.m.err != nil {
		t.Errorf("remembered model %q (%v)", h2.m.dir, h2.m.err)
	}
}

// Issue 28 item 10: a missing model folder is said in plain words in the model settings, not
// as Go's "stat …: no such file or directory" (in the banner: package app's
// TestMissingFolderInPlainWords).
func TestMissingFolderInPlainWords(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := engine.OpenModelSource(missing, engine.Overrides{})
	if err == nil {
		t.Fatal("a missing folder opened")
	}
	if r := sourceReport(engine.ModelInfo{}, err, sysmem.Status{}, false); strings.Contains(r, "no such file") {
		t.Errorf("model settings: %q", r)
	}
}
