package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/imageio"
	"kleinbild/engine/lora"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// The golden/lora pipeline cases (each sidecar gives the call), in two tests (both also run
// on WebGPU in make test-webgpu): TestLoRAPipelineStackLoKr (stacked LoRA formats and LoKr,
// which TestLoRAPipelineOnDevice repeats) and TestLoRAPipelineGolden (the rest).
var (
	loraPipelineCases = []string{
		"t2i_lora_diffusers_48x48_4steps",
		"t2i_lora_bfl_scale0.6_48x64_4steps",
		"t2i_base_cfg4_lora_diffusers_48x48_4steps",
		"t2i_lora_diffusers_fused_48x48_4steps",
		"i2i_lora_kohya_ref83x69_4steps",
	}
	loraPipelineStackLoKr = []string{
		"t2i_lora_stack_diffusers0.7_kohya-0.5_48x48_4steps",
		"t2i_lokr_lycoris_48x48_4steps",
	}
)

// loraSidecar is what the tests read from a golden/lora pipeline sidecar.
type loraSidecar struct {
	Prompt    string   `json:"prompt"`
	Seed      uint64   `json:"seed"`
	Height    *int     `json:"height_arg"`
	Width     *int     `json:"width_arg"`
	Steps     int      `json:"num_inference_steps"`
	Distilled bool     `json:"is_distilled"`
	Refs      []string `json:"reference_pngs"`
	LoRA      []struct {
		File       string   `json:"file"`
		Weight     *float32 `json:"weight"`
		Multiplier *float32 `json:"multiplier"` // LoKr cases

	} `json:"lora"`
}

// TestLoRAPipelineGolden runs every golden LoRA pipeline case through Generate with the
// adapters applied at run time (Request.Adapters) from the seed and prompt, and compares
// the latents after every step and the decoded image (rel-L2 1e-5, as the pipeline goldens)
// and the 8-bit image (±1). The fused case compares the run-time result with diffusers'
// fused one. Each case also checks that its adapters matter: the final latents are far
// from final_latents_without_lora.
func TestLoRAPipelineGolden(t *testing.T) {
	for _, name := range loraPipelineCases {
		t.Run(name, func(t *testing.T) { loraPipelineCase(t, name) })
	}
}

// TestLoRAPipelineStackLoKr is TestLoRAPipelineGolden for the stacked (diffusers 0.7, kohya
// −0.5) and the LoKr case.
func TestLoRAPipelineStackLoKr(t *testing.T) {
	for _, name := range loraPipelineStackLoKr {
		t.Run(name, func(t *testing.T) { loraPipelineCase(t, name) })
	}
}

// TestLoRAPipelineOnDevice: on a device backend the transformer makes way for the text
// encoder and is loaded again (unloadDenoiser); the reloaded transformer must apply the
// adapters too (it once came back without them).
func TestLoRAPipelineOnDevice(t *testing.T) {
	cpu := backends.Default()
	if cpu.Info().Kind != gpu.KindCPU {
		t.Skipf("backend %s is not a CPU backend", cpu.Name())
	}
	open := func(t *testing.T, dir string) *Model {
		m, err := Open(dir, &deviceMemory{Backend: cpu}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	for _, name := range loraPipelineStackLoKr {
		t.Run(name, func(t *testing.T) { loraPipelineCaseOn(t, name, open) })
	}
}

func loraPipelineCase(t *testing.T, name string) { loraPipelineCaseOn(t, name, openModel) }

func loraPipelineCaseOn(t *testing.T, name string, openModel func(*testing.T, string) *Model) {
	var side loraSidecar
	raw, err := os.ReadFile(golden.Path(t, "lora", "pipeline", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &side); err != nil {
		t.Fatal(err)
	}
	f := golden.Open(t, "lora/pipeline/"+name+".safetensors")
	dir := golden.TinyModel(t)
	if !side.Distilled {
		dir = golden.TinyBaseModel(t)
	}
	m := openModel(t, dir)
	dumps := map[string][]float32{}
	req := Request{Settings: Settings{Prompt: side.Prompt, Steps: side.Steps, Seed: side.Seed},
		Dump: func(name string, shape []int, data []float32) error {
			dumps[name] = append([]float32(nil), data...)
			return nil
		}}
	if side.Width != nil {
		req.Width = *side.Width
	}
	if side.Height != nil {
		req.Height = *side.Height
	}
	for _, r := range side.Refs {
		req.References = append(req.References, golden.Path(t, "pipeline", filepath.Base(r)))
	}
	for _, l := range side.LoRA {
		a, err := lora.Open(golden.Path(t, "lora", "loras", filepath.Base(l.File)))
		if err != nil {
			t.Fatal(err)
		}
		w := l.Weight
		if w == nil {
			w = l.Multiplier
		}
		if w == nil {
			t.Fatalf("sidecar gives %s no weight", l.File)
		}
		req.Adapters = append(req.Adapters, lora.Weighted{Adapter: a, Strength: *w})
	}
	if len(req.Adapters) == 0 {
		t.Fatal("sidecar names no adapter")
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
	for i := range side.Steps {
		want, _ := golden.F32(t, f, fmt.Sprintf("step%d_latents_after", i))
		golden.Compare(t, fmt.Sprintf("latents after step %d", i), dumps[fmt.Sprintf("latents_step%d", i)], unpack(want, latentChannels, gh*gw), 1e-5)
	}
	without, _ := golden.F32(t, f, "final_latents_without_lora")
	if rel, _ := golden.Errors(dumps[fmt.Sprintf("latents_step%d", side.Steps-1)], unpack(without, latentChannels, gh*gw)); rel < 1e-3 {
		t.Errorf("final latents within %.2g of those without the adapters", rel)
	}
	img, _ := golden.F32(t, f, "vae_decode_output")
	golden.Compare(t, "decoded image", dumps["image"], img, 1e-5)
	u8, err := f.Tensor("image_uint8")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := u8.Uint8()
	worst := 0
	for y := range res.HeightPx {
		for x := range res.WidthPx {
			for ch := range 3 {
				worst = max(worst, abs(int(res.Image.Pix[y*res.Image.Stride+4*x+ch])-int(want[(y*res.WidthPx+x)*3+ch])))
			}
		}
	}
	if worst > 1 {
		t.Errorf("8-bit image differs by up to %d levels (1 allowed)", worst)
	}
}

// TestAdaptersRefused: an adapter for another model is refused naming the file; a strength
// out of range is refused before anything runs; a transformer-only adapter leaves the
// prompt-embedding cache key alone, a text-encoder one changes it.
func TestAdaptersRefused(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	a, err := lora.Open(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRequest(Request{Adapters: lora.Stack{{Adapter: a, Strength: 5}}}, true); err == nil || !strings.Contains(err.Error(), "lora_kohya_r2_a1") {
		t.Errorf("strength 5: %v", err)
	}
	// The same adapter with a wider layer than the model's.
	wide := *a
	wide.Terms = append([]lora.Term(nil), a.Terms...)
	wide.Terms[0].In *= 2
	wide.Terms[0].A.Cols *= 2
	wide.Terms[0].A.Data = make([]float32, wide.Terms[0].A.Rows*wide.Terms[0].A.Cols)
	_, err = m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Steps: 1}, Adapters: lora.Stack{{Adapter: &wide, Strength: 1}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "lora_kohya_r2_a1") {
		t.Errorf("mismatched adapter: %v", err)
	}
	if k := textAdapterKey(lora.Stack{{Adapter: a, Strength: 1}}); k != "" {
		t.Errorf("transformer-only adapter changes the cache key: %q", k)
	}
	te := &lora.Adapter{Path: "te", Terms: []lora.Term{{Module: "model.layers.0.self_attn.q_proj", Component: lora.TextEncoder, Kind: lora.LoRA,
		Rank: 1, Scale: 1, A: lora.Matrix{Rows: 1, Cols: 1, Data: []float32{1}}, B: lora.Matrix{Rows: 1, Cols: 1, Data: []float32{1}}}}}
	k1, k2 := textAdapterKey(lora.Stack{{Adapter: te, Strength: 1}}), textAdapterKey(lora.Stack{{Adapter: te, Strength: 0.5}})
	if k1 == "" || k1 == k2 || textAdapterKey(lora.Stack{{Adapter: te, Strength: 0}}) != "" {
		t.Errorf("text-encoder keys: %q %q", k1, k2)
	}
}

// TestMetadataAdapters: the PNG metadata records each adapter's file name, SHA-256 and
// strength, and reads them back.
func TestMetadataAdapters(t *testing.T) {
	path := golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors")
	a, err := lora.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := imageio.SHA256File(path)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Settings: Settings{Prompt: "p"}, Adapters: lora.Stack{{Adapter: a, Strength: -0.5}}}
	meta, err := Metadata(ModelInfo{Dir: "m", Distilled: true}, req, nil, &Result{Seed: 1, WidthPx: 16, HeightPx: 16, Steps: 1, Guidance: 1}, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	var back imageio.Metadata
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	want := imageio.Adapter{File: "lora_kohya_r2_a1.safetensors", SHA256: sum, Strength: -0.5}
	if len(back.Adapters) != 1 || back.Adapters[0] != want || len(sum) != 64 {
		t.Errorf("adapters read back as %+v, want %+v (%s)", back.Adapters, want, raw)
	}
}
