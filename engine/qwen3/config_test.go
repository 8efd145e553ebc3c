package qwen3

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// qwen3_4B is the text_encoder/config.json of FLUX.2-klein-4B's Qwen3-4B (as published with
// Qwen/Qwen3-4B).
const qwen3_4B = `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2560,
  "initializer_range": 0.02,
  "intermediate_size": 9728,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

// qwen3_8B is Qwen/Qwen3-8B's config.json (FLUX.2-klein-9B's text encoder).
const qwen3_8B = `{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 12288,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

// writeConfig writes text as config.json in a fresh folder and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// editConfig returns the 4B config with the fields of edits set (a nil value deletes one).
func editConfig(t *testing.T, edits map[string]any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(qwen3_4B), &m); err != nil {
		t.Fatal(err)
	}
	for field, value := range edits {
		if value == nil {
			delete(m, field)
		} else {
			m[field] = value
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLoadConfigReal(t *testing.T) {
	cases := []struct {
		name, text string
		want       Config
	}{
		{"Qwen3-4B", qwen3_4B, Config{VocabSize: 151936, HiddenSize: 2560, IntermediateSize: 9728, NumHiddenLayers: 36,
			NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128, MaxPositionEmbeddings: 40960, RMSNormEps: 1e-6, RopeTheta: 1e6}},
		{"Qwen3-8B", qwen3_8B, Config{VocabSize: 151936, HiddenSize: 4096, IntermediateSize: 12288, NumHiddenLayers: 36,
			NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128, MaxPositionEmbeddings: 40960, RMSNormEps: 1e-6, RopeTheta: 1e6}},
		// transformers 5 writes rope_parameters instead of rope_theta.
		{"rope_parameters", editConfig(t, map[string]any{"rope_theta": nil, "rope_scaling": nil,
			"rope_parameters": map[string]any{"rope_theta": 1e6, "rope_type": "default"}}),
			Config{VocabSize: 151936, HiddenSize: 2560, IntermediateSize: 9728, NumHiddenLayers: 36,
				NumAttentionHeads: 32, NumKeyValueHeads: 8, HeadDim: 128, MaxPositionEmbeddings: 40960, RMSNormEps: 1e-6, RopeTheta: 1e6}},
	}
	for _, c := range cases {
		got, err := LoadConfig(writeConfig(t, c.text))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}

	// The golden tiny model, also given as its folder.
	got, err := LoadConfig(filepath.Join(golden.TinyModel(t), "text_encoder"))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{VocabSize: 151936, HiddenSize: 32, IntermediateSize: 64, NumHiddenLayers: 28, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, HeadDim: 8, MaxPositionEmbeddings: 40960, RMSNormEps: 1e-6, RopeTheta: 1e6}
	if got != want {
		t.Errorf("tiny: got %+v, want %+v", got, want)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cases := []struct {
		name, text string
		mention    string // the error must name this field (besides the file)
	}{
		{"corrupt JSON", `{"model_type": "qwen3",`, "malformed"},
		{"not an object", `[1, 2]`, "malformed"},
		{"unknown field", editConfig(t, map[string]any{"num_experts": 8}), "num_experts"},
		{"unknown architecture", editConfig(t, map[string]any{"architectures": []string{"LlamaForCausalLM"}}), "architectures"},
		{"other model type", editConfig(t, map[string]any{"model_type": "qwen2"}), "model_type"},
		{"missing model type", editConfig(t, map[string]any{"model_type": nil}), "model_type"},
		{"missing hidden_size", editConfig(t, map[string]any{"hidden_size": nil}), "hidden_size"},
		{"zero num_key_value_heads", editConfig(t, map[string]any{"num_key_value_heads": 0}), "num_key_value_heads"},
		{"negative vocab", editConfig(t, map[string]any{"vocab_size": -5}), "vocab_size"},
		{"heads not dividing", editConfig(t, map[string]any{"num_key_value_heads": 5}), "num_key_value_heads"},
		{"odd head_dim", editConfig(t, map[string]any{"head_dim": 7}), "head_dim"},
		{"string hidden_size", editConfig(t, map[string]any{"hidden_size": "2560"}), "hidden_size"},
		{"missing rms_norm_eps", editConfig(t, map[string]any{"rms_norm_eps": nil}), "rms_norm_eps"},
		{"missing rope_theta", editConfig(t, map[string]any{"rope_theta": nil}), "rope_theta"},
		{"gelu", editConfig(t, map[string]any{"hidden_act": "gelu"}), "hidden_act"},
		{"yarn", editConfig(t, map[string]any{"rope_scaling": map[string]any{"rope_type": "yarn", "factor": 4}}), "rope_scaling"},
		{"sliding window", editConfig(t, map[string]any{"use_sliding_window": true}), "use_sliding_window"},
		{"sliding layer", editConfig(t, map[string]any{"layer_types": layerTypes(35, "sliding_attention")}), "layer_types[35]"},
	}
	for _, c := range cases {
		p := writeConfig(t, c.text)
		_, err := LoadConfig(p)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, c.mention) {
			t.Errorf("%s: error %q does not name %s and %q", c.name, msg, p, c.mention)
		}
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "config.json")); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("missing file: error %v does not name config.json", err)
	}
}

// layerTypes is full "full_attention" entries followed by last.
func layerTypes(full int, last string) []string {
	out := make([]string, full, full+1)
	for i := range out {
		out[i] = "full_attention"
	}
	return append(out, last)
}
