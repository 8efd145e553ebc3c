package app

import (
	"kleinbild/app/modelui"

	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"image"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kleinbild/app/settings"
	"kleinbild/app/thumbcache"
	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/gpu/backends"
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
func openForm(t *testing.T, h *harness) *modelui.Form {
	t.Helper()
	h.ui.model.Spec.VAEGroups = tinyVAEGroups
	h.ui.ShowModelDialog()
	f := h.ui.model.Form
	if f == nil {
		t.Fatal("no model form")
	}
	return f
}

// waitChecked waits until the form's latest check has ended and returns its status text.
func waitChecked(h *harness, f *modelui.Form) string {
	h.t.Helper()
	h.waitFor("the model check", 20*time.Second, func() bool { return !f.Checking.Visible() })
	h.settle()
	if len(f.Status.Segments) == 0 {
		h.t.Error("the status shows nothing")
	}
	return f.Report
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
// the model uses, its quant types are shown, and it is remembered, fitted and written into
// the images' metadata.
func TestModelDialogComfyUI(t *testing.T) {
	data := t.TempDir()
	comfy := comfyFolder(t)
	fake := newFakeGen()
	h := newHarness(t, data, "", fake.open)
	u := h.ui
	f := openForm(t, h)
	f.Path.SetText(filepath.Dir(comfy)) // the installation: its models/ folder is found
	st := waitChecked(h, f)
	if !f.OK || !f.ComboBox.Visible() || len(f.Combo.Options) != 2 {
		t.Fatalf("ComfyUI folder: ok %v, combinations shown %v %q; status %q", f.OK, f.ComboBox.Visible(), f.Combo.Options, st)
	}
	// The GGUF transformer is the first choice, with its quant types and format.
	for _, want := range []string{"flux-2-klein-tiny-Q8_0-mix.gguf", "qwen3-tiny-Q8_0.gguf", "flux2-ae-tiny.safetensors", "Q8_0 x", "GGUF", "distilled"} {
		if !strings.Contains(st, want) {
			t.Errorf("status lacks %q: %q", want, st)
		}
	}
	if !strings.Contains(f.Combo.Selected, "Q8_0-mix.gguf") {
		t.Errorf("selected combination %q", f.Combo.Selected)
	}
	ggufBytes := f.Res.Src.WeightBytes(engine.Transformer)

	// Pick the BF16 single file.
	i := slices.IndexFunc(f.Combo.Options, func(s string) bool { return strings.HasPrefix(s, "flux-2-klein-tiny.safetensors") })
	if i < 0 {
		t.Fatalf("combinations %q", f.Combo.Options)
	}
	f.Combo.SetSelected(f.Combo.Options[i])
	st = waitChecked(h, f)
	if !f.OK || !strings.Contains(st, "BF16 x") || strings.Contains(st, "Q8_0-mix") {
		t.Fatalf("after picking the single file: ok %v, status %q", f.OK, st)
	}
	src := f.Res.Src
	h.tapDialogButton("Use this model")
	h.settle()
	m := u.model
	if m.Err != nil || m.Src != src || m.Dlg != nil {
		t.Fatalf("model after Use: err %v, same source %v", m.Err, m.Src == src)
	}
	if got := partFile(m.Info, engine.Transformer).Path; filepath.Base(got) != "flux-2-klein-tiny.safetensors" {
		t.Errorf("transformer in use %q", got)
	}
	if m.Spec.Path != filepath.Dir(comfy) || filepath.Base(m.Spec.Transformer) != "flux-2-klein-tiny.safetensors" || filepath.Base(m.Spec.TextEncoder) != "qwen3-tiny-Q8_0.gguf" {
		t.Errorf("spec %+v", m.Spec)
	}
	// The fit line reads the model's sizes from the same Source.
	h.waitFor("the fit line's model", 5*time.Second, func() bool { return u.fit.model != nil })
	if got := u.fit.model.TransformerBytes; got != src.WeightBytes(engine.Transformer) || got == ggufBytes {
		t.Errorf("fit line transformer bytes %d, want %d (GGUF's %d)", got, src.WeightBytes(engine.Transformer), ggufBytes)
	}

	// A generation names the files and their types in the PNG.
	u.ctl.setSize(64, 64)
	out := h.generate("comfy")
	if out.err != nil {
		t.Fatal(out.err)
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(out.entry))
	if err != nil || !ok {
		t.Fatalf("metadata: %v %v", ok, err)
	}
	if len(meta.ModelFiles) != 3 || meta.ModelFiles[1].File != "flux-2-klein-tiny.safetensors" || !strings.Contains(meta.ModelFiles[1].Types, "BF16") ||
		meta.ModelFiles[0].File != "qwen3-tiny-Q8_0.gguf" || !strings.Contains(meta.ModelFiles[0].Types, "Q8_0") {
		t.Errorf("model files in the PNG: %+v", meta.ModelFiles)
	}
	h.settle()
	h.close()

	// Remembered: the next start uses the same files.
	set, err := settings.Load(filepath.Join(data, "settings.json"))
	if err != nil || filepath.Base(set.ModelTransformer) != "flux-2-klein-tiny.safetensors" || set.ModelVAEGroups != tinyVAEGroups {
		t.Errorf("settings %+v (%v)", set, err)
	}
	h2 := newHarness(t, data, "", fake.open)
	m2 := h2.ui.model
	if m2.Err != nil || m2.Spec != m.Spec || filepath.Base(partFile(m2.Info, engine.Transformer).Path) != "flux-2-klein-tiny.safetensors" {
		t.Errorf("after a restart: spec %+v, err %v", m2.Spec, m2.Err)
	}
	// The dialog shows the remembered combination.
	f2 := openForm(t, h2)
	waitChecked(h2, f2)
	if !strings.HasPrefix(f2.Combo.Selected, "flux-2-klein-tiny.safetensors") || !f2.OK {
		t.Errorf("remembered combination shown as %q (ok %v)", f2.Combo.Selected, f2.OK)
	}
}

// recordingGen records the requests of the generator it wraps.
type recordingGen struct {
	Generator
	mu   sync.Mutex
	reqs []engine.Request
}

func (g *recordingGen) Generate(ctx context.Context, req engine.Request, progress func(engine.Progress)) (*engine.Result, error) {
	g.mu.Lock()
	g.reqs = append(g.reqs, req)
	g.mu.Unlock()
	return g.Generator.Generate(ctx, req, progress)
}

// Issue 18 and 20: choosing a model reads it once (modelui.OpenSpec) and generation opens that same
// Source. A real run with GGUF parts in place of the tiny folder's gives the engine's image
// for that Source, not the folder's BF16 one, and names the files in its metadata.
func TestGenerateGGUFPartsRealEngine(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	sp := modelui.Spec{Path: tinyModel(t), Transformer: golden.Path(t, q8mixFile), TextEncoder: golden.Path(t, teQ8File)}
	if err := u.model.SetSpec(sp, true); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var opened []engine.Source
	var rec *recordingGen
	open := u.run.open
	u.run.open = func(src engine.Source, device string) (Generator, error) {
		g, err := open(src, device)
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, src)
		rec = &recordingGen{Generator: g}
		return rec, err
	}
	u.ctl.setSize(64, 64)
	out := h.generate("A red cube on a blue table")
	if out.err != nil {
		t.Fatal(out.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 1 || opened[0] != u.model.Src {
		t.Fatalf("generation opened %d sources, the model's: %v", len(opened), len(opened) == 1 && opened[0] == u.model.Src)
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(out.entry))
	if err != nil || !ok || len(meta.ModelFiles) != 2 {
		t.Fatalf("metadata %+v (%v, %v)", meta, ok, err)
	}
	if meta.ModelFiles[0].File != "qwen3-tiny-Q8_0.gguf" || meta.ModelFiles[0].Types != "Q8_0 x197, F32 x113" ||
		meta.ModelFiles[1].File != "flux-2-klein-tiny-Q8_0-mix.gguf" || !strings.Contains(meta.ModelFiles[1].Types, "Q8_0 x") {
		t.Errorf("model files %+v", meta.ModelFiles)
	}
	got, err := thumbcache.DecodeFile(u.Gallery.Path(out.entry))
	if err != nil {
		t.Fatal(err)
	}
	// The same request on the engine directly: from the same files it is the app's image
	// (tolerance: one 8-bit level); from the BF16 folder it is not (the golden cases differ
	// by 0.02-0.05, 6-12 levels).
	req := rec.reqs[0]
	engineImage := func(sp modelui.Spec) image.Image {
		t.Helper()
		src, _, err := modelui.OpenSpec(sp)
		if err != nil {
			t.Fatal(err)
		}
		g, err := modelui.EngineOpener(t.TempDir())(src, backends.CPUID())
		if err != nil {
			t.Fatal(err)
		}
		defer g.(io.Closer).Close()
		res, err := g.Generate(context.Background(), req, func(engine.Progress) {})
		if err != nil {
			t.Fatal(err)
		}
		return res.Image
	}
	if d := maxPixelDiff(got, engineImage(sp)); d > 1 {
		t.Errorf("the app's image differs from the engine's for the same files by %d levels", d)
	}
	if d := maxPixelDiff(got, engineImage(modelui.Spec{Path: tinyModel(t)})); d < 3 {
		t.Errorf("the app's image is the BF16 folder's (%d levels apart): the GGUF files were not used", d)
	}
}

// maxPixelDiff is the largest difference of any RGB channel between a and b (256 when the
// sizes differ).
func maxPixelDiff(a, b image.Image) int {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 256
	}
	worst := 0
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range []int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8)} {
				worst = max(worst, d, -d)
			}
		}
	}
	return worst
}

// Issue 20: the part files' chooser (Kleinbild's, in weight-file mode) lists folders and
// GGUF/safetensors files only; tapping a file chooses it, and a typed path of one too.
func TestBrowseWeightFile(t *testing.T) {
	fakeHome(t)
	comfy := comfyFolder(t)
	dm := filepath.Join(comfy, "diffusion_models")
	writeTestPNG(t, dm, "preview.png", 4, 4, nil)
	os.Mkdir(filepath.Join(dm, "old"), 0o755)
	h := newHarness(t, t.TempDir(), "", newFakeGen().open)
	var got string
	c := browseWeightFile(h.ui.Shell, filepath.Join(dm, "flux-2-klein-tiny.safetensors"), func(p string) { got = p })
	h.chooserLoaded(c)
	if names := itemNames(c); c.dir != dm || !slices.Equal(names, []string{"old", "flux-2-klein-tiny-Q8_0-mix.gguf", "flux-2-klein-tiny.safetensors"}) {
		t.Fatalf("in %s: %q", c.dir, names)
	}
	if !strings.Contains(c.msg.Text, "2 model files") || !c.ok.Disabled() {
		t.Errorf("summary %q, confirm enabled %v", c.msg.Text, !c.ok.Disabled())
	}
	c.list.Select(itemIndex(c, "flux-2-klein-tiny-Q8_0-mix.gguf"))
	if got != filepath.Join(dm, "flux-2-klein-tiny-Q8_0-mix.gguf") {
		t.Errorf("chose %q", got)
	}
	// A typed path: a GGUF file is chosen, an image refused.
	got = ""
	c = browseWeightFile(h.ui.Shell, "", func(p string) { got = p })
	h.chooserLoaded(c)
	c.submit(filepath.Join(dm, "preview.png"))
	h.chooserLoaded(c)
	if got != "" || !strings.Contains(c.msg.Text, "not a GGUF or safetensors file") {
		t.Errorf("typed image: chose %q, message %q", got, c.msg.Text)
	}
	c.submit(golden.Path(t, teQ8File))
	h.chooserLoaded(c)
	if got != golden.Path(t, teQ8File) {
		t.Errorf("typed GGUF: chose %q", got)
	}
}

// Issue 18: the app opens a model through engine.Source only: not through the download
// package's validation, not by inspecting the folder again (engine.Inspect, engine.Open,
// estimate.ForFolder) in the files that choose, check and run the model.
func TestModelOpenedOnce(t *testing.T) {
	banned := map[string]bool{"download.Validate": true, "engine.Inspect": true, "engine.Open": true, "estimate.ForFolder": true}
	for _, file := range []string{"modelui/modelsource.go", "modelui/modeldialog.go", "modelui/modeldrop.go", "modelui/modelpanel.go", "modelui/open.go", "run.go", "fit.go", "options.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			fn, ok := n.(*ast.FuncDecl)
			if ok && fn.Name.Name == "InspectModel" { // the downloader's check of a finished download
				return false
			}
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s calls %s.%s", file, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
