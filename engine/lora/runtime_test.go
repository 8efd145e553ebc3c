package lora_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// TestGoldenTransformerRuntime applies each golden adapter at run time (flux2.SetAdapters on
// the unchanged bf16 base weights, on the default backend: KLEINBILD_BACKEND=webgpu runs it on
// WebGPU) and compares with diffusers' forward (LoKr: LyCORIS' ΔW merged). On the same loaded
// model it then sets strength 0 (the output without the adapter) and 1 again (the adapter's
// output): strengths change without reloading anything.
func TestGoldenTransformerRuntime(t *testing.T) {
	in := golden.Open(t, "transformer/t2i_2x3_sigma0.75.safetensors")
	input := flux2.HostInput{
		Img: f32(t, in, "hidden_states"), ImgIDs: i64(t, in, "img_ids"),
		Txt: f32(t, in, "encoder_hidden_states"), TxtIDs: i64(t, in, "txt_ids"),
		Timestep: f32(t, in, "timestep")[0],
	}
	m, err := flux2.Load(filepath.Join(golden.TinyModel(t), "transformer"), backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	run := func(t *testing.T, s lora.Stack) []float32 {
		t.Helper()
		if err := m.SetAdapters(s); err != nil {
			t.Fatal(err)
		}
		got, err := m.ForwardHost(context.Background(), input, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, c := range []struct{ golden, lora, want string }{
		{"lora_diffusers", "lora_diffusers_r4_a8.safetensors", "output"},
		{"lora_bfl", "lora_bfl_r4_noalpha.safetensors", "output"},
		{"lora_kohya", "lora_kohya_r2_a1.safetensors", "output"},
		{"lokr_lycoris", "lokr_lycoris_f4.safetensors", "output"},
		{"lora_bfl_final_layer_adaln", "lora_bfl_final_layer_adaln_r4.safetensors", "output_if_lora_B_halves_swapped"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			f := golden.Open(t, "lora/transformer/t2i_2x3_sigma0.75_"+c.golden+".safetensors")
			a := adapter(t, c.lora)
			want, base := f32(t, f, c.want), f32(t, f, "output_without_lora")
			got := run(t, lora.Stack{{Adapter: a, Strength: 1}})
			golden.Compare(t, c.want, got, want, outputTol)
			if rel, _ := golden.Errors(got, base); rel < 100*outputTol {
				t.Errorf("output is within %.2g of the output without the adapter", rel)
			}
			golden.Compare(t, "strength 0", run(t, lora.Stack{{Adapter: a, Strength: 0}}), base, outputTol)
			golden.Compare(t, "strength 1 again", run(t, lora.Stack{{Adapter: a, Strength: 1}}), want, outputTol)
		})
	}
	// A term for a layer the model lacks, or of another shape, is refused naming its key.
	good := adapter(t, "lora_kohya_r2_a1.safetensors")
	for _, c := range []struct {
		name   string
		change func(*lora.Term)
	}{
		{"missing", func(x *lora.Term) { x.Module = "transformer_blocks.9.attn.to_q" }},
		{"shape", func(x *lora.Term) { x.Out++ }},
	} {
		bad := *good
		bad.Terms = append([]lora.Term(nil), good.Terms...)
		c.change(&bad.Terms[0])
		if err := m.SetAdapters(lora.Stack{{Adapter: &bad, Strength: 1}}); err == nil || !strings.Contains(err.Error(), bad.Terms[0].Key) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	run(t, nil)
}
