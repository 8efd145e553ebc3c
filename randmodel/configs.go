package randmodel

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// variantDims are the sizes that tell the variants apart; everything else is shared.
type variantDims struct {
	// Text encoder (Qwen3).
	teHidden, teInter, teLayers, teHeads, teKVHeads, teHeadDim, teMaxWindow int
	teTied                                                                  bool
	// Transformer.
	double, single, heads, headDim, joint, ropeAxis int
	// VAE.
	vaeChannels []int
	vaeGroups   int
}

var dims = map[Variant]variantDims{
	// Qwen3-4B and FLUX.2-klein-4B.
	Klein4B: {
		teHidden: 2560, teInter: 9728, teLayers: 36, teHeads: 32, teKVHeads: 8, teHeadDim: 128, teMaxWindow: 36, teTied: true,
		double: 5, single: 20, heads: 24, headDim: 128, joint: 7680, ropeAxis: 32,
		vaeChannels: []int{128, 256, 512, 512}, vaeGroups: 32,
	},
	// Qwen3-8B (untied embeddings: it stores lm_head.weight) and FLUX.2-klein-9B.
	Klein9B: {
		teHidden: 4096, teInter: 12288, teLayers: 36, teHeads: 32, teKVHeads: 8, teHeadDim: 128, teMaxWindow: 36, teTied: false,
		double: 8, single: 24, heads: 32, headDim: 128, joint: 12288, ropeAxis: 32,
		vaeChannels: []int{128, 256, 512, 512}, vaeGroups: 32,
	},
	// The golden tiny model (golden/model/tiny-flux2-klein).
	Tiny: {
		teHidden: 32, teInter: 64, teLayers: 28, teHeads: 4, teKVHeads: 2, teHeadDim: 8, teMaxWindow: 28, teTied: true,
		double: 2, single: 2, heads: 2, headDim: 32, joint: 96, ropeAxis: 8,
		vaeChannels: []int{16, 32, 64, 64}, vaeGroups: 8,
	},
}

// diffusersVersion and transformersVersion are the versions written into the configs (those
// of the golden tiny model).
const (
	diffusersVersion    = "0.40.0.dev0"
	transformersVersion = "4.57.1"
)

// pyFloat is a JSON number formatted as Python's repr(float) (3.0, 0.0001, 1e-06), so that
// the configs read exactly like the ones diffusers and transformers write.
func pyFloat(f float64) json.RawMessage {
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		return json.RawMessage(strconv.FormatFloat(f, 'e', -1, 64))
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return json.RawMessage(s)
}

// configJSON formats a config as the Hugging Face libraries do: keys sorted, two-space
// indent, trailing newline.
func configJSON(v map[string]any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("format config: %w", err)
	}
	return append(b, '\n'), nil
}

func modelIndex(base bool) map[string]any {
	return map[string]any{
		"_class_name":        "Flux2KleinPipeline",
		"_diffusers_version": diffusersVersion,
		"is_distilled":       !base,
		"scheduler":          []string{"diffusers", "FlowMatchEulerDiscreteScheduler"},
		"text_encoder":       []string{"transformers", "Qwen3ForCausalLM"},
		"tokenizer":          []string{"transformers", "Qwen2TokenizerFast"},
		"transformer":        []string{"diffusers", "Flux2Transformer2DModel"},
		"vae":                []string{"diffusers", "AutoencoderKLFlux2"},
	}
}

// schedulerConfig is FLUX.1-dev's FlowMatchEulerDiscreteScheduler config, which diffusers'
// FLUX.2 conversion script uses (the golden tiny model's file).
func schedulerConfig() map[string]any {
	return map[string]any{
		"_class_name":            "FlowMatchEulerDiscreteScheduler",
		"_diffusers_version":     diffusersVersion,
		"base_image_seq_len":     256,
		"base_shift":             pyFloat(0.5),
		"invert_sigmas":          false,
		"max_image_seq_len":      4096,
		"max_shift":              pyFloat(1.15),
		"num_train_timesteps":    1000,
		"shift":                  pyFloat(3.0),
		"shift_terminal":         nil,
		"stochastic_sampling":    false,
		"time_shift_type":        "exponential",
		"use_beta_sigmas":        false,
		"use_dynamic_shifting":   true,
		"use_exponential_sigmas": false,
		"use_karras_sigmas":      false,
	}
}

func textEncoderConfig(d variantDims) map[string]any {
	layerTypes := make([]string, d.teLayers)
	for i := range layerTypes {
		layerTypes[i] = "full_attention"
	}
	return map[string]any{
		"architectures":           []string{"Qwen3ForCausalLM"},
		"attention_bias":          false,
		"attention_dropout":       pyFloat(0),
		"bos_token_id":            151643,
		"dtype":                   "bfloat16",
		"eos_token_id":            151645,
		"head_dim":                d.teHeadDim,
		"hidden_act":              "silu",
		"hidden_size":             d.teHidden,
		"initializer_range":       pyFloat(0.02),
		"intermediate_size":       d.teInter,
		"layer_types":             layerTypes,
		"max_position_embeddings": 40960,
		"max_window_layers":       d.teMaxWindow,
		"model_type":              "qwen3",
		"num_attention_heads":     d.teHeads,
		"num_hidden_layers":       d.teLayers,
		"num_key_value_heads":     d.teKVHeads,
		"rms_norm_eps":            pyFloat(1e-6),
		"rope_scaling":            nil,
		"rope_theta":              1000000,
		"sliding_window":          nil,
		"tie_word_embeddings":     d.teTied,
		"transformers_version":    transformersVersion,
		"use_cache":               true,
		"use_sliding_window":      false,
		"vocab_size":              151936,
	}
}

func transformerConfig(d variantDims) map[string]any {
	return map[string]any{
		"_class_name":                "Flux2Transformer2DModel",
		"_diffusers_version":         diffusersVersion,
		"attention_head_dim":         d.headDim,
		"axes_dims_rope":             []int{d.ropeAxis, d.ropeAxis, d.ropeAxis, d.ropeAxis},
		"eps":                        pyFloat(1e-6),
		"guidance_embeds":            false,
		"in_channels":                128,
		"joint_attention_dim":        d.joint,
		"mlp_ratio":                  pyFloat(3.0),
		"num_attention_heads":        d.heads,
		"num_layers":                 d.double,
		"num_single_layers":          d.single,
		"out_channels":               nil,
		"patch_size":                 1,
		"rope_theta":                 2000,
		"timestep_guidance_channels": 256,
	}
}

func vaeConfig(d variantDims) map[string]any {
	blocks := func(name string) []string { return []string{name, name, name, name} }
	return map[string]any{
		"_class_name":                "AutoencoderKLFlux2",
		"_diffusers_version":         diffusersVersion,
		"act_fn":                     "silu",
		"batch_norm_eps":             pyFloat(1e-4),
		"batch_norm_momentum":        pyFloat(0.1),
		"block_out_channels":         d.vaeChannels,
		"decoder_block_out_channels": nil,
		"down_block_types":           blocks("DownEncoderBlock2D"),
		"force_upcast":               true,
		"in_channels":                3,
		"latent_channels":            32,
		"layers_per_block":           2,
		"mid_block_add_attention":    true,
		"norm_num_groups":            d.vaeGroups,
		"out_channels":               3,
		"patch_size":                 []int{2, 2},
		"sample_size":                1024,
		"up_block_types":             blocks("UpDecoderBlock2D"),
		"use_post_quant_conv":        true,
		"use_quant_conv":             true,
	}
}
