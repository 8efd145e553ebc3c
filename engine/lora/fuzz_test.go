package lora

import (
	"os"
	"reflect"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// FuzzParseAdapter feeds arbitrary bytes to the adapter parser: it must return an adapter or
// an error, never panic, and what it returns must be consistent (every term's factors of its
// stated shapes, the fit check and the math running on them).
func FuzzParseAdapter(f *testing.F) {
	if data, err := os.ReadFile(golden.Path(f, "lora", "loras", "lora_bfl_final_layer_adaln_r4.safetensors")); err == nil {
		f.Add(data)
	}
	w1, w2 := mat("w1", 3, 2), mat("w2", 2, 2)
	f.Add(encode(nil, mat("lora_unet_double_blocks_0_img_attn_qkv.lora_down.weight", 3, 4), mat("lora_unet_double_blocks_0_img_attn_qkv.lora_up.weight", 6, 3),
		scalar("lora_unet_double_blocks_0_img_attn_qkv.alpha", 1)))
	f.Add(encode(map[string]string{"lora_adapter_metadata": `{"transformer.lora_alpha": 8, "transformer.alpha_pattern": {"to_.": 2}}`},
		mat("transformer.transformer_blocks.0.attn.to_q.lora_A.weight", 1, 4), mat("transformer.transformer_blocks.0.attn.to_q.lora_B.weight", 4, 1)))
	f.Add(encode(nil, tens{"diffusion_model.double_blocks.0.txt_attn.qkv.lokr_w1", w1.shape, w1.data},
		mat("diffusion_model.double_blocks.0.txt_attn.qkv.lokr_w2_a", 2, 1), mat("diffusion_model.double_blocks.0.txt_attn.qkv.lokr_w2_b", 1, 2)))
	f.Add(encode(nil, tens{"lycoris_x_embedder.lokr_w1", w1.shape, w1.data}, tens{"lycoris_x_embedder.lokr_w2", w2.shape, w2.data},
		mat("text_encoder.model.layers.0.mlp.up_proj.lora_A.weight", 1, 3), mat("text_encoder.model.layers.0.mlp.up_proj.lora_B.weight", 2, 1)))
	layers := map[Component]Layers{Transformer: {"transformer_blocks.0.attn.to_q": {4, 4}, "x_embedder": {6, 4}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseBytes("fuzz.safetensors", data)
		if err != nil {
			return
		}
		// Inspect's header-only parse describes an adapter the full parse accepts alike.
		if f, err := weights.ParseBytes("fuzz.safetensors", data); err == nil {
			s, err := parseFile(f, true)
			if err != nil || !reflect.DeepEqual(s.Summary(), a.Summary()) {
				t.Fatalf("shapes-only parse: %v, %+v vs %+v", err, s, a.Summary())
			}
			f.Close()
		}
		_ = a.Check(layers, false)
		_ = a.Summary()
		for comp := range 2 {
			for _, terms := range (Stack{{Adapter: a, Strength: -1.5}}).Modules(Component(comp)) {
				t0 := terms[0]
				// The multiply-adds of ΔW: each input stays fast, so that no execution outlives
				// the fuzzing deadline.
				work := 0
				for _, a := range terms {
					work += t0.Out * t0.In * max(a.Rank, 1)
				}
				if t0.Out*t0.In > 1<<16 || work > 1<<20 {
					continue
				}
				d, err := DeltaW(terms, t0.Out, t0.In)
				if err != nil || len(d) != t0.Out*t0.In {
					t.Fatalf("%s: ΔW of %d values, %v", t0.Module, len(d), err)
				}
				y := make([]float32, t0.Out)
				if err := Apply(y, make([]float32, t0.In), 1, terms); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
