package lora_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// Transformer outputs against the float32 reference: flux2's own output tolerance (the
// reference moves ~1e-6 between its float32 and float64 runs; a LoRA mistake moves the output
// by 5–40 %, lora_effect_* in the sidecars).
const outputTol = 1e-5

func adapter(t *testing.T, file string) *lora.Adapter {
	t.Helper()
	a, err := lora.Open(golden.Path(t, "lora", "loras", file))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mergedModel writes the tiny transformer with W + Σ strength·ΔW merged in (float64 ΔW,
// float32 weights, as the golden data's fused and LoKr references do) and loads it on the
// default backend. Merging is the test's way to run adapters through the unchanged model; at
// run time they stay factors.
func mergedModel(t *testing.T, stack lora.Stack) *flux2.Model {
	t.Helper()
	src := filepath.Join(golden.TinyModel(t), "transformer")
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := weights.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	mods := stack.Modules(lora.Transformer)
	var specs []weights.TensorSpec
	var out []weights.OutTensor
	merged := 0
	for _, name := range ck.Names() {
		w, err := ck.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.Float32()
		if err != nil {
			t.Fatal(err)
		}
		v = append([]float32(nil), v...)
		specs = append(specs, weights.TensorSpec{Name: name, Shape: w.Shape})
		if terms, ok := mods[strings.TrimSuffix(name, ".weight")]; ok && len(w.Shape) == 2 {
			d, err := lora.DeltaW(terms, w.Shape[0], w.Shape[1])
			if err != nil {
				t.Fatal(err)
			}
			for i := range v {
				v[i] = float32(float64(v[i]) + float64(d[i]))
			}
			merged++
		}
		out = append(out, weights.OutTensor{Name: name, Shape: w.Shape, F32: v})
	}
	if merged != len(mods) {
		t.Fatalf("merged %d of %d adapted modules", merged, len(mods))
	}
	layers := map[lora.Component]lora.Layers{lora.Transformer: lora.LayersOf(specs)}
	for _, w := range stack {
		if err := w.Adapter.Check(layers, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := weights.WriteFile(filepath.Join(dir, "diffusion_pytorch_model.safetensors"), out, nil); err != nil {
		t.Fatal(err)
	}
	m, err := flux2.Load(dir, backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func f32(t *testing.T, f *weights.File, name string) []float32 {
	v, _ := golden.F32(t, f, name)
	return v
}

func i64(t *testing.T, f *weights.File, name string) []int64 {
	v, _ := golden.I64(t, f, name)
	return v
}

// TestGoldenTransformerForward runs the tiny transformer with each golden adapter merged and
// compares with diffusers' forward (LoKr: with LyCORIS' ΔW merged).
func TestGoldenTransformerForward(t *testing.T) {
	in := golden.Open(t, "transformer/t2i_2x3_sigma0.75.safetensors")
	input := flux2.HostInput{
		Img: f32(t, in, "hidden_states"), ImgIDs: i64(t, in, "img_ids"),
		Txt: f32(t, in, "encoder_hidden_states"), TxtIDs: i64(t, in, "txt_ids"),
		Timestep: f32(t, in, "timestep")[0],
	}
	for _, c := range []struct{ golden, lora, want string }{
		{"lora_diffusers", "lora_diffusers_r4_a8.safetensors", "output"},
		{"lora_diffusers", "lora_diffusers_r4_a8.safetensors", "output_fused"},
		{"lora_bfl", "lora_bfl_r4_noalpha.safetensors", "output"},
		{"lora_kohya", "lora_kohya_r2_a1.safetensors", "output"},
		{"lokr_lycoris", "lokr_lycoris_f4.safetensors", "output"},
		// The BFL final-layer adaLN: we swap lora_B's (shift, scale) halves as the file means;
		// diffusers does not ("output").
		{"lora_bfl_final_layer_adaln", "lora_bfl_final_layer_adaln_r4.safetensors", "output_if_lora_B_halves_swapped"},
	} {
		t.Run(c.golden+"/"+c.want, func(t *testing.T) {
			f := golden.Open(t, "lora/transformer/t2i_2x3_sigma0.75_"+c.golden+".safetensors")
			m := mergedModel(t, lora.Stack{{Adapter: adapter(t, c.lora), Strength: 1}})
			got, err := m.ForwardHost(context.Background(), input, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, c.want, got, f32(t, f, c.want), outputTol)
			// The comparison can fail: the output without the adapter (and, for the adaLN
			// case, diffusers' unswapped one) is far outside the tolerance.
			for _, other := range []string{"output_without_lora", "output"} {
				if other == c.want || (other == "output" && c.want == "output_fused") {
					continue
				}
				if rel, _ := golden.Errors(got, f32(t, f, other)); rel < 100*outputTol {
					t.Errorf("output is within %.2g of %s: the adapter made no difference", rel, other)
				}
			}
		})
	}
}

// TestGoldenPipelineSteps replays every transformer call of the pipeline cases (single
// adapters at 1.0 and 0.6, two stacked at 0.7 and −0.5, LoKr, base model with CFG, fused,
// img2img) on the stored inputs of each step. The full pipelines (scheduler, VAE, PNG) with
// adapters are for the engine once adapters are wired in.
func TestGoldenPipelineSteps(t *testing.T) {
	type adapterAt struct {
		file     string
		strength float32
	}
	for _, c := range []struct {
		name     string
		adapters []adapterAt
	}{
		{"t2i_lora_diffusers_48x48_4steps", []adapterAt{{"lora_diffusers_r4_a8.safetensors", 1}}},
		{"t2i_lora_bfl_scale0.6_48x64_4steps", []adapterAt{{"lora_bfl_r4_noalpha.safetensors", 0.6}}},
		{"t2i_lora_stack_diffusers0.7_kohya-0.5_48x48_4steps", []adapterAt{{"lora_diffusers_r4_a8.safetensors", 0.7}, {"lora_kohya_r2_a1.safetensors", -0.5}}},
		{"t2i_lokr_lycoris_48x48_4steps", []adapterAt{{"lokr_lycoris_f4.safetensors", 1}}},
		{"t2i_base_cfg4_lora_diffusers_48x48_4steps", []adapterAt{{"lora_diffusers_r4_a8.safetensors", 1}}},
		{"t2i_lora_diffusers_fused_48x48_4steps", []adapterAt{{"lora_diffusers_r4_a8.safetensors", 1}}},
		// img2img: the stored input and output hold the target and the reference tokens.
		{"i2i_lora_kohya_ref83x69_4steps", []adapterAt{{"lora_kohya_r2_a1.safetensors", 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stack lora.Stack
			for _, a := range c.adapters {
				stack = append(stack, lora.Weighted{Adapter: adapter(t, a.file), Strength: a.strength})
			}
			if err := stack.Check(); err != nil {
				t.Fatal(err)
			}
			m := mergedModel(t, stack)
			f := golden.Open(t, "lora/pipeline/"+c.name+".safetensors")
			var side struct {
				CFG bool `json:"do_classifier_free_guidance"`
			}
			readSidecar(t, golden.Path(t, "lora", "pipeline", c.name+".json"), &side)
			txtIDs, imgIDs := i64(t, f, "txt_ids"), i64(t, f, "img_ids")
			for step := range 4 {
				p := fmt.Sprintf("step%d_", step)
				in := flux2.HostInput{Img: f32(t, f, p+"transformer_input"), ImgIDs: imgIDs,
					Txt: f32(t, f, "prompt_embeds"), TxtIDs: txtIDs, Timestep: f32(t, f, p+"timestep_passed")[0]}
				got, err := m.ForwardHost(context.Background(), in, nil)
				if err != nil {
					t.Fatal(err)
				}
				if side.CFG {
					// With CFG the LoRA acts on both passes; each is stored.
					in.Txt = f32(t, f, "negative_prompt_embeds")
					uncond, err := m.ForwardHost(context.Background(), in, nil)
					if err != nil {
						t.Fatal(err)
					}
					golden.Compare(t, p+"transformer_output_uncond", uncond, f32(t, f, p+"transformer_output_uncond"), outputTol)
				}
				golden.Compare(t, p+"transformer_output", got, f32(t, f, p+"transformer_output"), outputTol)
			}
		})
	}
}

func readSidecar(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}
