package qwen3

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// tinyTensors returns every tensor of the golden tiny text encoder as an OutTensor (bf16
// views into the mapping, valid until the test ends).
func tinyTensors(t *testing.T) []weights.OutTensor {
	t.Helper()
	c, err := weights.Open(filepath.Join(golden.TinyModel(t), "text_encoder", "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var out []weights.OutTensor
	for _, name := range c.Names() {
		tn, err := c.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		bf, err := tn.BF16()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, weights.OutTensor{Name: name, Shape: tn.Shape, BF16: bf})
	}
	return out
}

// modelDir writes a text_encoder folder with the tiny config and the given tensors as
// model.safetensors.
func modelDir(t *testing.T, tensors []weights.OutTensor) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "text_encoder", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := weights.WriteFile(filepath.Join(dir, "model.safetensors"), tensors, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// edited returns the tiny tensors with edit applied to each (false drops the tensor).
func edited(t *testing.T, edit func(*weights.OutTensor) bool) []weights.OutTensor {
	var out []weights.OutTensor
	for _, tn := range tinyTensors(t) {
		if edit(&tn) {
			out = append(out, tn)
		}
	}
	return out
}

func TestLoadErrors(t *testing.T) {
	const (
		dropped  = "model.layers.5.mlp.up_proj.weight"
		reshaped = "model.layers.3.self_attn.k_proj.weight"
		retyped  = "model.layers.0.self_attn.o_proj.weight"
	)
	cases := []struct {
		name     string
		dir      func(t *testing.T) string
		mentions []string
	}{
		{"missing config", func(t *testing.T) string {
			dir := modelDir(t, tinyTensors(t))
			os.Remove(filepath.Join(dir, "config.json"))
			return dir
		}, []string{"config.json"}},
		{"corrupt config", func(t *testing.T) string {
			dir := modelDir(t, tinyTensors(t))
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "qwen3", "hidden_size": 3`), 0o644)
			return dir
		}, []string{"config.json", "malformed"}},
		{"unknown config field", func(t *testing.T) string {
			dir := modelDir(t, tinyTensors(t))
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(editConfig(t, map[string]any{"moe_intermediate_size": 768})), 0o644)
			return dir
		}, []string{"config.json", "moe_intermediate_size"}},
		{"no weights", func(t *testing.T) string {
			dir := modelDir(t, tinyTensors(t))
			os.Remove(filepath.Join(dir, "model.safetensors"))
			return dir
		}, []string{"no .safetensors"}},
		{"truncated weights", func(t *testing.T) string {
			dir := modelDir(t, tinyTensors(t))
			p := filepath.Join(dir, "model.safetensors")
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
			return dir
		}, []string{"model.safetensors", "truncated"}},
		{"missing tensor", func(t *testing.T) string {
			return modelDir(t, edited(t, func(tn *weights.OutTensor) bool { return tn.Name != dropped }))
		}, []string{"model.safetensors", dropped}},
		{"wrong shape", func(t *testing.T) string {
			return modelDir(t, edited(t, func(tn *weights.OutTensor) bool {
				if tn.Name == reshaped {
					tn.Shape = []int{tn.Shape[1], tn.Shape[0]}
				}
				return true
			}))
		}, []string{"model.safetensors", reshaped, "[32 16]"}},
		{"integer weight", func(t *testing.T) string {
			return modelDir(t, edited(t, func(tn *weights.OutTensor) bool {
				if tn.Name == retyped {
					tn.I64, tn.BF16 = make([]int64, len(tn.BF16)), nil
				}
				return true
			}))
		}, []string{"model.safetensors", retyped, "I64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Load(c.dir(t), testBackend())
			if err == nil {
				e.Close()
				t.Fatal("no error")
			}
			for _, m := range c.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			t.Log(err)
		})
	}
}

// TestLoadVariants loads layouts the real checkpoints use (two shards with an index, as
// Qwen3-4B ships), f32 weights and Qwen3Model names without the "model." prefix; each must
// give the golden embeddings.
func TestLoadVariants(t *testing.T) {
	ids, mask := promptInputs(t, 0)
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "prompt_embeds")
	check := func(t *testing.T, dir string) {
		e, err := Load(dir, testBackend())
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
		if err != nil {
			t.Fatal(err)
		}
		golden.Compare(t, "prompt0 prompt_embeds", got, want, relTol)
	}

	t.Run("sharded with f32 shard", func(t *testing.T) {
		all := tinyTensors(t)
		dir := modelDir(t, nil)
		os.Remove(filepath.Join(dir, "model.safetensors"))
		shards := [2][]weights.OutTensor{}
		weightMap := map[string]string{}
		for i, tn := range all {
			s := i % 2
			if s == 1 { // the second shard holds float32 copies
				f := make([]float32, len(tn.BF16))
				weights.BF16ToF32(f, tn.BF16)
				tn.BF16, tn.F32 = nil, f
			}
			shards[s] = append(shards[s], tn)
			weightMap[tn.Name] = []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}[s]
		}
		for s, name := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"} {
			if err := weights.WriteFile(filepath.Join(dir, name), shards[s], nil); err != nil {
				t.Fatal(err)
			}
		}
		idx, _ := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 0}, "weight_map": weightMap})
		if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, dir)
	})

	t.Run("Qwen3Model names", func(t *testing.T) {
		check(t, modelDir(t, edited(t, func(tn *weights.OutTensor) bool {
			tn.Name = strings.TrimPrefix(tn.Name, "model.")
			return true
		})))
	})
}
