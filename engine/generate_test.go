package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// pipelineCase is one golden/pipeline case: what the reference was called with.
type pipelineCase struct {
	name          string
	prompt        string
	width, height int // 0: not given
	steps         int
	seed          uint64 // the seed of the stored initial latents
	refs          []string
	base          bool
}

var pipelineCases = []pipelineCase{
	{"t2i_distilled_48x80_4steps", "A red cube on a blue table", 80, 48, 4, 11, nil, false},
	{"t2i_distilled_70x40_4steps", "a photo of a cat wearing sunglasses, studio lighting, 35mm, f/1.8 -- \"vintage\" look", 40, 70, 4, 12, nil, false},
	{"i2i_distilled_ref83x69_4steps", "Ünïcödé & émojis 🎨🚀 test — 日本語のテキスト\twith\ttabs\nand a newline", 0, 0, 4, 13, []string{"i2i_ref_83x69.png"}, false},
	{"i2i_distilled_2refs_48x48_4steps", "A red cube on a blue table", 48, 48, 4, 14, []string{"i2i_ref_83x69.png", "i2i_ref_100x70.png"}, false},
	{"t2i_base_cfg4_48x64_3steps", "A red cube on a blue table", 64, 48, 3, 15, nil, true},
}

func openModel(t *testing.T, dir string) *Model {
	t.Helper()
	m, err := Open(dir, backends.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestPipelineGolden runs every golden pipeline case end to end from the seed and prompt
// (the seeded noise must equal the stored initial latents) and compares the prompt
// embedding, the latents after every step, the decoded image and the 8-bit PNG.
func TestPipelineGolden(t *testing.T) {
	for _, c := range pipelineCases {
		t.Run(c.name, func(t *testing.T) {
			f := golden.Open(t, "pipeline/"+c.name+".safetensors")
			dir := golden.TinyModel(t)
			if c.base {
				dir = golden.TinyBaseModel(t)
			}
			m := openModel(t, dir)
			if m.Info().Distilled == c.base {
				t.Fatalf("variant detection: distilled=%v for base=%v", m.Info().Distilled, c.base)
			}
			dumps := map[string][]float32{}
			req := Request{Settings: Settings{Prompt: c.prompt, Width: c.width, Height: c.height, Steps: c.steps, Seed: c.seed},
				Dump: func(name string, shape []int, data []float32) error {
					dumps[name] = append([]float32(nil), data...)
					return nil
				}}
			for _, r := range c.refs {
				req.References = append(req.References, golden.Path(t, "pipeline", r))
			}
			res, err := m.Generate(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			init, shape := golden.F32(t, f, "initial_latents")
			gh, gw := shape[2], shape[3]
			if res.HeightPx != 16*gh || res.WidthPx != 16*gw {
				t.Fatalf("output %dx%d, want %dx%d", res.WidthPx, res.HeightPx, 16*gw, 16*gh)
			}
			golden.Compare(t, "seeded initial latents", dumps["latents_init"], init, 0)
			pe, _ := golden.F32(t, f, "prompt_embeds")
			golden.Compare(t, "prompt_embeds", dumps["prompt_embeds"], pe, 1e-5)
			for i := 0; i < c.steps; i++ {
				want, _ := golden.F32(t, f, fmt.Sprintf("step%d_latents_after", i))
				golden.Compare(t, fmt.Sprintf("latents after step %d", i), dumps[fmt.Sprintf("latents_step%d", i)], unpack(want, latentChannels, gh*gw), 1e-5)
			}
			img, _ := golden.F32(t, f, "vae_decode_output")
			golden.Compare(t, "decoded image", dumps["image"], img, 1e-5)
			u8, err := f.Tensor("image_uint8")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := u8.Uint8()
			diff, worst := 0, 0
			for y := 0; y < res.HeightPx; y++ {
				for x := 0; x < res.WidthPx; x++ {
					for ch := 0; ch < 3; ch++ {
						got := int(res.Image.Pix[y*res.Image.Stride+4*x+ch])
						w := int(want[(y*res.WidthPx+x)*3+ch])
						if d := abs(got - w); d > 0 {
							diff++
							worst = max(worst, d)
						}
					}
				}
			}
			t.Logf("8-bit image: %d of %d values differ, worst by %d", diff, len(want), worst)
			if worst > 1 {
				t.Errorf("8-bit image differs by up to %d levels (1 allowed)", worst)
			}
		})
	}
}

// unpack turns tokens [hw, c] into [c, hw] (the pipeline's _unpack_latents_with_ids for
// the ids it builds), for comparing the reference's packed latents with the dumps.
func unpack(x []float32, c, hw int) []float32 {
	out := make([]float32, len(x))
	for ci := range c {
		for p := range hw {
			out[ci*hw+p] = x[p*c+ci]
		}
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func TestGenerateRejectsBadRequests(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	tooMany := make([]string, MaxReferences+1)
	for i := range tooMany {
		tooMany[i] = golden.Path(t, "pipeline", "i2i_ref_83x69.png")
	}
	notImage := filepath.Join(t.TempDir(), "notes.png")
	os.WriteFile(notImage, []byte("this is not a PNG"), 0o644)
	cases := []struct {
		name string
		req  Request
		want string
	}{
		{"width too small", Request{Settings: Settings{Width: 8, Height: 64}}, "width 8 px is out of range"},
		{"height too large", Request{Settings: Settings{Width: 64, Height: 5000}}, "height 5000 px is out of range"},
		{"too many references", Request{Settings: Settings{References: tooMany}}, "at most"},
		{"missing reference", Request{Settings: Settings{References: []string{"/nonexistent/ref.png"}}}, "ref.png"},
		{"unreadable reference", Request{Settings: Settings{References: []string{notImage}}}, "notes.png"},
		{"bad steps", Request{Settings: Settings{Steps: -3}}, "steps"},
		{"wrong latents size", Request{Settings: Settings{Width: 64, Height: 64}, Latents: make([]float32, 7)}, "initial latents"},
		{"wrong embeddings size", Request{Settings: Settings{Width: 64, Height: 64}, PromptEmbeds: make([]float32, 5)}, "prompt embeddings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.Generate(context.Background(), c.req, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestGenerateCancel(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	ctx, cancel := context.WithCancel(context.Background())
	blocks := 0
	_, err := m.Generate(ctx, Request{Settings: Settings{Prompt: "x", Width: 64, Height: 64, Seed: 1}}, func(p Progress) {
		if p.Phase == PhaseDenoise {
			blocks++
			if p.Step == 2 {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// The model must still work after a cancelled run.
	if _, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 64, Height: 64, Seed: 1}}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOpenIncompleteFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "model_index.json"), []byte(`{"_class_name":"Flux2KleinPipeline","is_distilled":true}`), 0o644)
	_, err := Open(dir, backends.Default(), Options{})
	if err == nil || !strings.Contains(err.Error(), "transformer/diffusion_pytorch_model.safetensors") || !strings.Contains(err.Error(), "tokenizer/tokenizer.json") {
		t.Fatalf("error %v should list the missing files", err)
	}
}

// After a generation the encoder's pages are released; encoding a new prompt must still
// give the reference embedding.
func TestEncoderUsableAfterRelease(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	if _, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "A red cube on a blue table", Width: 32, Height: 32}}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := m.EncodePrompt(context.Background(), pipelineCases[1].prompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt1.safetensors"), "prompt_embeds")
	golden.Compare(t, "prompt 1 after release", got, want, 1e-5)
}

// TestGenerateFreesTensors checks that a generation (with references, and one cancelled
// midway) frees every tensor it allocates: after the transformer releases its kept
// activations, the backend holds what it held before.
func TestGenerateFreesTensors(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	b := m.Backend()
	req := Request{Settings: Settings{Prompt: "x", Width: 32, Height: 48, Seed: 3,
		References: []string{golden.Path(t, "pipeline", "i2i_ref_83x69.png")}}}
	// The first run loads the text encoder and caches the prompt's embedding.
	if _, err := m.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	m.flux.Release()
	before := b.Memory().Resident
	if _, err := m.Generate(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err := m.Generate(ctx, req, func(p Progress) {
		if p.Phase == PhaseDenoise && p.Step == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v, want context.Canceled", err)
	}
	m.flux.Release()
	if after := b.Memory().Resident; after != before {
		t.Errorf("backend holds %d bytes after two generations, %d before", after, before)
	}
	t.Logf("resident %d bytes, peak %d", before, b.Memory().Peak)
}

// lossyBackend fails every Flush once lost is set, as a device that went away would.
type lossyBackend struct {
	gpu.Backend
	lost bool
}

var errDeviceLost = errors.New("device lost")

func (b *lossyBackend) Flush() error {
	if b.lost {
		return gpu.NewDeviceError("lossy", errDeviceLost)
	}
	return b.Backend.Flush()
}

// TestGenerateBackendError checks that a backend error comes back wrapped with the phase it
// happened in and that the generation's tensors are freed.
func TestGenerateBackendError(t *testing.T) {
	b := &lossyBackend{Backend: backends.Default()}
	m, err := Open(golden.TinyModel(t), b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	before := b.Memory().Resident
	_, err = m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Seed: 1}}, func(p Progress) {
		if p.Phase == PhaseDenoise && p.Step == 2 {
			b.lost = true
		}
	})
	if !errors.Is(err, errDeviceLost) || !strings.Contains(err.Error(), "denoising step 2") {
		t.Fatalf("error %v, want device lost in denoising step 2", err)
	}
	if !gpu.IsDeviceError(err) { // the app falls back to the CPU on it
		t.Errorf("error %v is no longer a *gpu.DeviceError", err)
	}
	t.Log(err)
	m.flux.Release()
	if after := b.Memory().Resident; after != before {
		t.Errorf("backend holds %d bytes after the failed generation, %d before", after, before)
	}
}
