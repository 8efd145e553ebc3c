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

func partFile(info engine.ModelInfo, c engine.Component) engine.PartFile {
	for _, f := range info.Files {
		if f.Component == c {
			return f
		}
	}
	return engine.PartFile{}
}

// Issue 20: the ComfyUI combination chosen (in the model dialog: modelui's
// TestModelDialogComfyUI), as it is remembered, is what the model uses, what the fit line
// measures and what a generation names, with the files' types, in the PNG.
func TestComfyUIModelFitAndMetadata(t *testing.T) {
	data := t.TempDir()
	comfy := comfyFolder(t)
	set := settings.Settings{ModelDir: filepath.Dir(comfy), ModelVAEGroups: tinyVAEGroups,
		ModelTransformer: filepath.Join(comfy, "diffusion_models", "flux-2-klein-tiny.safetensors"),
		ModelTextEncoder: filepath.Join(comfy, "text_encoders", "qwen3-tiny-Q8_0.gguf"),
		ModelVAE:         filepath.Join(comfy, "vae", "flux2-ae-tiny.safetensors")}
	if err := settings.Save(filepath.Join(data, "settings.json"), set); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, data, "", newFakeGen().open)
	u := h.ui
	src := u.model.UsableSource()
	if src == nil || filepath.Base(partFile(u.model.ModelInfo(), engine.Transformer).Path) != "flux-2-klein-tiny.safetensors" {
		t.Fatalf("model in use %+v (usable %v)", u.model.ModelInfo().Files, u.model.Usable())
	}
	// The fit line reads the model's sizes from the same Source.
	h.waitFor("the fit line's model", 5*time.Second, func() bool { return u.fit.Model != nil })
	if got := u.fit.Model.TransformerBytes; got != src.WeightBytes(engine.Transformer) {
		t.Errorf("fit line transformer bytes %d, want %d", got, src.WeightBytes(engine.Transformer))
	}

	// A generation names the files and their types in the PNG.
	u.ctl.SetSize(64, 64)
	out := h.generate("comfy")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(out.Entry))
	if err != nil || !ok {
		t.Fatalf("metadata: %v %v", ok, err)
	}
	if len(meta.ModelFiles) != 3 || meta.ModelFiles[1].File != "flux-2-klein-tiny.safetensors" || !strings.Contains(meta.ModelFiles[1].Types, "BF16") ||
		meta.ModelFiles[0].File != "qwen3-tiny-Q8_0.gguf" || !strings.Contains(meta.ModelFiles[0].Types, "Q8_0") {
		t.Errorf("model files in the PNG: %+v", meta.ModelFiles)
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

// Issue 18 and 20: choosing a model reads it once (modelui.Model.SetSpec) and generation opens that same
// Source. A real run with GGUF parts in place of the tiny folder's gives the engine's image
// for that Source, not the folder's BF16 one, and names the files in its metadata.
func TestGenerateGGUFPartsRealEngine(t *testing.T) {
	h := newHarness(t, t.TempDir(), "", nil)
	u := h.ui
	parts := engine.Overrides{Transformer: golden.Path(t, q8mixFile), TextEncoder: golden.Path(t, teQ8File)}
	sp := modelui.SpecFromSettings(settings.Settings{ModelDir: tinyModel(t), ModelTransformer: parts.Transformer, ModelTextEncoder: parts.TextEncoder})
	if err := u.model.SetSpec(sp, true); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var opened []engine.Source
	var rec *recordingGen
	open := u.run.Open
	u.run.Open = func(src engine.Source, device string) (Generator, error) {
		g, err := open(src, device)
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, src)
		rec = &recordingGen{Generator: g}
		return rec, err
	}
	u.ctl.SetSize(64, 64)
	out := h.generate("A red cube on a blue table")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 1 || opened[0] != u.model.UsableSource() {
		t.Fatalf("generation opened %d sources, the model's: %v", len(opened), len(opened) == 1 && opened[0] == u.model.UsableSource())
	}
	meta, ok, err := imageio.ReadMetadata(u.Gallery.Path(out.Entry))
	if err != nil || !ok || len(meta.ModelFiles) != 2 {
		t.Fatalf("metadata %+v (%v, %v)", meta, ok, err)
	}
	if meta.ModelFiles[0].File != "qwen3-tiny-Q8_0.gguf" || meta.ModelFiles[0].Types != "Q8_0 x197, F32 x113" ||
		meta.ModelFiles[1].File != "flux-2-klein-tiny-Q8_0-mix.gguf" || !strings.Contains(meta.ModelFiles[1].Types, "Q8_0 x") {
		t.Errorf("model files %+v", meta.ModelFiles)
	}
	got, err := thumbcache.DecodeFile(u.Gallery.Path(out.Entry))
	if err != nil {
		t.Fatal(err)
	}
	// The same request on the engine directly: from the same files it is the app's image
	// (tolerance: one 8-bit level); from the BF16 folder it is not (the golden cases differ
	// by 0.02-0.05, 6-12 levels).
	req := rec.reqs[0]
	engineImage := func(dir string, parts engine.Overrides) image.Image {
		t.Helper()
		src, err := engine.OpenModelSource(dir, parts)
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
	if d := maxPixelDiff(got, engineImage(tinyModel(t), parts)); d > 1 {
		t.Errorf("the app's image differs from the engine's for the same files by %d levels", d)
	}
	if d := maxPixelDiff(got, engineImage(tinyModel(t), engine.Overrides{})); d < 3 {
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

// Issue 18: the app opens a model through engine.Source only: not through the download
// package's validation, not by inspecting the folder again (engine.Inspect, engine.Open,
// estimate.ForFolder) in the files that run the model (those that choose and check it:
// modelui's TestModelOpenedOnce).
func TestModelOpenedOnce(t *testing.T) {
	banned := map[string]bool{"download.Validate": true, "engine.Inspect": true, "engine.Open": true, "estimate.ForFolder": true}
	for _, file := range []string{"run/run.go", "form/fit.go", "options.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
					t.Errorf("%s calls %s.%s", file, x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
