package engine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// ggufCase is a golden pipeline case of ../shared/golden/gguf/cases and how to open its model.
type ggufCase struct {
	name, prompt string
	w, h         int
	seed         uint64
	ref          string
	open         func(t *testing.T) Source
}

const (
	q8mixFile = "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"
	sdcppFile = "gguf/model/sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"
	teQ8File  = "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"
	bflVAE    = "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors"
	bflFlux   = "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors"
)

// overTiny opens the tiny diffusers folder with the given files in place of its components.
func overTiny(tr, te string) func(t *testing.T) Source {
	return func(t *testing.T) Source {
		o := Overrides{Transformer: golden.Path(t, tr)}
		if te != "" {
			o.TextEncoder = golden.Path(t, te)
		}
		src, err := OpenModelSource(golden.TinyModel(t), o)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
}

// comfyFolder builds a ComfyUI models folder of the golden files (symlinks): both transformer
// files, the Q8_0 text encoder and the BFL autoencoder.
func comfyFolder(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ComfyUI")
	for _, f := range []string{q8mixFile, bflFlux, teQ8File, bflVAE} {
		rel := strings.TrimPrefix(f, "gguf/model/comfyui/")
		dst := filepath.Join(root, "models", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(golden.Path(t, f), dst); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var ggufCases = []ggufCase{
	{"t2i_q8mix_48x48_4steps", "A red cube on a blue table", 48, 48, 31, "", overTiny(q8mixFile, "")},
	{"t2i_q8mix_teq8_48x48_4steps", "A red cube on a blue table", 48, 48, 31, "", overTiny(q8mixFile, teQ8File)},
	{"t2i_sdcpp_q8q4kf16_teq8_48x64_4steps", "Ünïcödé & émojis 🎨🚀 test — 日本語のテキスト\twith\ttabs\nand a newline", 64, 48, 33, "", overTiny(sdcppFile, teQ8File)},
	{"i2i_q8mix_ref83x69_48x48_4steps", "a photo of a cat wearing sunglasses, studio lighting, 35mm, f/1.8 -- \"vintage\" look", 48, 48, 32, "i2i_ref_83x69.png", overTiny(q8mixFile, "")},
	// The same case from a ComfyUI folder: GGUF transformer, GGUF text encoder, BFL VAE file
	// (GroupNorm 8, the tiny model's), the bundled tokenizer, the default scheduler.
	{"t2i_q8mix_teq8_48x48_4steps", "A red cube on a blue table", 48, 48, 31, "", func(t *testing.T) Source {
		src, err := OpenModelSource(comfyFolder(t), Overrides{VAEGroups: 8})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}},
	// The same case from an assembled download's folder: GGUF files in transformer/ and
	// text_encoder/, the tiny model's vae/ and tokenizer/, no model_index.json or scheduler/.
	{"t2i_q8mix_teq8_48x48_4steps", "A red cube on a blue table", 48, 48, 31, "", openAssembled},
}

// TestGGUFPipelineGolden runs the golden GGUF pipeline cases end to end through
// OpenModelSource: seeded noise exact, prompt embeddings, the latents after every step and the
// decoded image at rel-L2 1e-5 (float32 vs float64 of the reference is ~1e-6).
func TestGGUFPipelineGolden(t *testing.T) {
	for i, c := range ggufCases {
		t.Run(fmt.Sprintf("%d_%s", i, c.name), func(t *testing.T) {
			src := c.open(t)
			if len(src.Info().Files) == 0 {
				t.Fatal("no component read from a file")
			}
			m, err := OpenSource(src, backends.Default(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			f := golden.Open(t, "gguf/cases/"+c.name+".safetensors")
			dumps := map[string][]float32{}
			req := Request{Settings: Settings{Prompt: c.prompt, Width: c.w, Height: c.h, Steps: 4, Seed: c.seed},
				Dump: func(name string, shape []int, data []float32) error {
					dumps[name] = append([]float32(nil), data...)
					return nil
				}}
			if c.ref != "" {
				req.References = []string{golden.Path(t, "gguf/cases", c.ref)}
			}
			if _, err := m.Generate(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			init, shape := golden.F32(t, f, "initial_latents")
			gh, gw := shape[2], shape[3]
			golden.Compare(t, "seeded initial latents", dumps["latents_init"], init, 0)
			pe, _ := golden.F32(t, f, "prompt_embeds")
			golden.Compare(t, "prompt_embeds", dumps["prompt_embeds"], pe, 1e-5)
			for i := range 4 {
				want, _ := golden.F32(t, f, fmt.Sprintf("step%d_latents_after", i))
				golden.Compare(t, fmt.Sprintf("latents after step %d", i), dumps[fmt.Sprintf("latents_step%d", i)], unpack(want, latentChannels, gh*gw), 1e-5)
			}
			img, _ := golden.F32(t, f, "vae_decode_output")
			golden.Compare(t, "decoded image", dumps["image"], img, 1e-5)
		})
	}
}

// TestOpenModelSource checks what each kind of source reports: files, naming, quant types,
// missing parts, variant, and the ComfyUI folder's choice among its combinations.
func TestOpenModelSource(t *testing.T) {
	tiny := golden.TinyModel(t)
	folder, err := OpenModelSource(tiny, Overrides{})
	if err != nil || len(folder.Info().Files) != 0 || !folder.Info().OK() {
		t.Fatalf("diffusers folder: %v, %+v", err, folder)
	}

	if base, err := OpenModelSource(tiny, Overrides{Variant: "base"}); err != nil || base.Info().Distilled || base.Info().DefaultSteps != StepsFor(false) {
		t.Errorf("--variant base on a folder: %v", err)
	}
	over, err := OpenModelSource(tiny, Overrides{Transformer: golden.Path(t, sdcppFile)})
	if err != nil {
		t.Fatal(err)
	}
	info := over.Info()
	if !info.OK() || len(info.Files) != 1 || info.Files[0].Component != Transformer || info.Files[0].Format != "gguf" {
		t.Fatalf("override: %+v", info)
	}
	if got := info.Files[0].TypeList(); got != "Q8_0 x21, F16 x18, Q4_K x2" {
		t.Errorf("types %q", got)
	}
	if over.Where(VAE) != folder.Where(VAE) || over.Where(Transformer) != golden.Path(t, sdcppFile) {
		t.Errorf("where: %s, %s", over.Where(VAE), over.Where(Transformer))
	}
	if !info.Distilled || info.Dir != tiny {
		t.Errorf("variant or dir not the base's: %+v", info)
	}

	single, err := OpenModelSource(golden.Path(t, q8mixFile), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	info = single.Info()
	if len(info.Problems) != 2 || info.Problems[0].Component != TextEncoder || info.Problems[1].Component != VAE {
		t.Errorf("single file: missing %v", info.Problems)
	}
	if _, err := single.EncoderConfig(); err == nil || !strings.Contains(err.Error(), "--text-encoder") {
		t.Errorf("single file encoder config: %v", err)
	}
	if _, err := OpenSource(single, backends.Default(), Options{}); err == nil {
		t.Error("a model without text encoder and VAE opened")
	}
	if base, _ := OpenModelSource(golden.Path(t, q8mixFile), Overrides{Variant: "base"}); base.Info().Distilled {
		t.Error("--variant base not applied")
	}
	if _, err := OpenModelSource(golden.Path(t, q8mixFile), Overrides{Transformer: golden.Path(t, sdcppFile)}); err == nil {
		t.Error("two transformers accepted")
	}
	if _, err := OpenModelSource(tiny, Overrides{Transformer: golden.Path(t, teQ8File)}); err == nil {
		t.Error("a text encoder accepted as transformer")
	}

	root := comfyFolder(t)
	combos := ComfyCombinations(filepath.Join(root, "models"), 8)
	if len(combos) != 2 {
		t.Fatalf("ComfyUI combinations: %+v", combos)
	}
	comfy, err := OpenModelSource(root, Overrides{VAEGroups: 8})
	if err != nil {
		t.Fatal(err)
	}
	info = comfy.Info()
	if !info.OK() || len(info.Files) != 3 || filepath.Base(fileOf(info, Transformer).Path) != filepath.Base(q8mixFile) || len(info.Notes) != 1 {
		t.Fatalf("ComfyUI folder: %+v", info)
	}
	pick, err := OpenModelSource(root, Overrides{Transformer: combos[slices.IndexFunc(combos, func(c Combination) bool { return strings.HasSuffix(c.Transformer, ".safetensors") })].Transformer, VAEGroups: 8})
	if err != nil || fileOf(pick.Info(), Transformer).Format != "safetensors" || fileOf(pick.Info(), Transformer).Naming != "BFL" {
		t.Fatalf("ComfyUI pick: %v %+v", err, pick.Info().Files)
	}
	if tok, err := comfy.Tokenizer(); err != nil || len(tok.Encode("a red cube")) == 0 {
		t.Errorf("bundled tokenizer: %v", err)
	}
	// A file from outside the folder replaces only its component: the rest still comes from
	// the folder (it once left transformer and VAE missing).
	outside := filepath.Join(t.TempDir(), "my-qwen3.gguf")
	if err := os.Symlink(golden.Path(t, teQ8File), outside); err != nil {
		t.Fatal(err)
	}
	mixed, err := OpenModelSource(root, Overrides{TextEncoder: outside, VAEGroups: 8})
	if err != nil {
		t.Fatal(err)
	}
	info = mixed.Info()
	if !info.OK() || mixed.Where(TextEncoder) != outside || filepath.Base(mixed.Where(Transformer)) != filepath.Base(q8mixFile) {
		t.Errorf("ComfyUI folder with an outside text encoder: missing %v, text encoder %s, transformer %s", info.Problems, mixed.Where(TextEncoder), mixed.Where(Transformer))
	}
}

func fileOf(info ModelInfo, c Component) PartFile {
	for _, f := range info.Files {
		if f.Component == c {
			return f
		}
	}
	return PartFile{}
}

// TestEmbedCacheTextEncoderFile: a text encoder file in place of the folder's must not reuse
// the folder encoder's cached embeddings (the same folder, the same prompt).
func TestEmbedCacheTextEncoderFile(t *testing.T) {
	cache := t.TempDir()
	prompt := "A red cube on a blue table"
	encode := func(o Overrides) []float32 {
		src, err := OpenModelSource(golden.TinyModel(t), o)
		if err != nil {
			t.Fatal(err)
		}
		m, err := OpenSource(src, backends.Default(), Options{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		emb, err := m.EncodePrompt(context.Background(), prompt, nil)
		if err != nil {
			t.Fatal(err)
		}
		return emb
	}
	encode(Overrides{})
	got := encode(Overrides{TextEncoder: golden.Path(t, teQ8File)})
	want, _ := golden.F32(t, golden.Open(t, "gguf/cases/qwen3_q8_0_prompt0.safetensors"), "prompt_embeds")
	golden.Compare(t, "prompt_embeds after the folder's were cached", got, want, 1e-5)
}

// TestOpenModelSourceHostile: a truncated GGUF, a text file and a missing file given as
// components give errors that name the file, never a panic.
func TestOpenModelSourceHostile(t *testing.T) {
	tmp := t.TempDir()
	full, err := os.ReadFile(golden.Path(t, q8mixFile))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(tmp, "cut.gguf")
	text := filepath.Join(tmp, "notes.safetensors")
	if os.WriteFile(cut, full[:len(full)/2], 0o644) != nil || os.WriteFile(text, []byte("hello"), 0o644) != nil {
		t.Fatal("write")
	}
	for _, o := range []Overrides{
		{Transformer: cut}, {TextEncoder: cut}, {VAE: text}, {Transformer: filepath.Join(tmp, "none.gguf")},
		{Transformer: golden.Path(t, q8mixFile), Variant: ""}, // fine: the control
	} {
		src, err := OpenModelSource(golden.TinyModel(t), o)
		name := cmp.Or(o.Transformer, o.TextEncoder, o.VAE)
		if o.Transformer == golden.Path(t, q8mixFile) {
			if err != nil || src == nil {
				t.Errorf("control: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Base(name)) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
