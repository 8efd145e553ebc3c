package remap

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Single files (BFL, ComfyUI, GGUF) carry no config.json. The functions below infer the
// diffusers / transformers config.json of each component from the shapes of its tensors, by
// their target (diffusers / transformers) names, i.e. after a plan. What shapes cannot tell
// is FLUX.2's fixed value (see SPEC: rope, eps) or a parameter.

// Shapes maps target tensor names to their shapes (torch order).
type Shapes map[string][]int

func (s Shapes) dim(name string, i int) (int, error) {
	sh, ok := s[name]
	if !ok {
		return 0, fmt.Errorf("tensor %s missing", name)
	}
	if i >= len(sh) {
		return 0, fmt.Errorf("tensor %s has shape %v, want at least %d dimensions", name, sh, i+1)
	}
	if sh[i] <= 0 {
		return 0, fmt.Errorf("tensor %s has shape %v", name, sh)
	}
	return sh[i], nil
}

// count returns how many consecutive indices from 0 have a tensor named fmt.Sprintf(format, i).
func (s Shapes) count(format string) int {
	n := 0
	for {
		if _, ok := s[fmt.Sprintf(format, n)]; !ok {
			return n
		}
		n++
	}
}

// dimReader reads dimensions until the first error, which it keeps.
type dimReader struct {
	s   Shapes
	err error
}

func (r *dimReader) get(name string, i int) int {
	if r.err != nil {
		return 0
	}
	v, err := r.s.dim(name, i)
	r.err = err
	return v
}

// Flux2Config infers a Flux2Transformer2DModel config.json from the transformer's diffusers
// tensor shapes: hidden size, heads (hidden / head_dim, head_dim from norm_q), block counts,
// joint_attention_dim, mlp_ratio, guidance embedding. rope_theta, eps and patch_size are
// FLUX.2's fixed values; axes_dims_rope is four equal axes of head_dim/4 (FLUX.2: 32 x 4).
func Flux2Config(s Shapes) ([]byte, error) {
	r := &dimReader{s: s}
	hidden := r.get("x_embedder.weight", 0)
	in := r.get("x_embedder.weight", 1)
	joint := r.get("context_embedder.weight", 1)
	tgc := r.get("time_guidance_embed.timestep_embedder.linear_1.weight", 1)
	head := r.get("transformer_blocks.0.attn.norm_q.weight", 0)
	mlp := r.get("transformer_blocks.0.ff.linear_out.weight", 1)
	out := r.get("proj_out.weight", 0)
	if r.err != nil {
		return nil, fmt.Errorf("flux2 config: %w", r.err)
	}
	if hidden%head != 0 || head%4 != 0 {
		return nil, fmt.Errorf("flux2 config: hidden size %d and head dim %d do not fit", hidden, head)
	}
	cfg := map[string]any{
		"_class_name":                "Flux2Transformer2DModel",
		"attention_head_dim":         head,
		"axes_dims_rope":             []int{head / 4, head / 4, head / 4, head / 4},
		"eps":                        1e-6,
		"guidance_embeds":            s["time_guidance_embed.guidance_embedder.linear_1.weight"] != nil,
		"in_channels":                in,
		"joint_attention_dim":        joint,
		"mlp_ratio":                  float64(mlp) / float64(hidden),
		"num_attention_heads":        hidden / head,
		"num_layers":                 s.count("transformer_blocks.%d.attn.to_q.weight"),
		"num_single_layers":          s.count("single_transformer_blocks.%d.attn.to_qkv_mlp_proj.weight"),
		"out_channels":               nil,
		"patch_size":                 1,
		"rope_theta":                 2000,
		"timestep_guidance_channels": tgc,
	}
	if out != in {
		cfg["out_channels"] = out
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// Qwen3Params are the text encoder hyperparameters shapes cannot give; zero fields take
// Qwen3's values (rope_theta 1e6, rms_norm_eps 1e-6, 40960 positions). From a llama.cpp
// GGUF: qwen3.rope.freq_base, qwen3.attention.layer_norm_rms_epsilon, qwen3.context_length.
type Qwen3Params struct {
	RopeTheta   float64
	RMSNormEps  float64
	MaxPosition int
}

// Float32Decimal returns the shortest decimal that reads back as the float32 x, as float64:
// GGUF stores rms_norm_eps 1e-6 as the float32 9.99999997e-07, which transformers' config
// holds as 1e-6.
func Float32Decimal(x float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return v
}

// Qwen3Config infers a Qwen3 config.json from the text encoder's transformers tensor shapes
// (all layers: num_hidden_layers counts model.layers.N). tie_word_embeddings is true unless an
// lm_head.weight is present.
func Qwen3Config(s Shapes, p Qwen3Params) ([]byte, error) {
	r := &dimReader{s: s}
	vocab := r.get("model.embed_tokens.weight", 0)
	hidden := r.get("model.embed_tokens.weight", 1)
	head := r.get("model.layers.0.self_attn.q_norm.weight", 0)
	q := r.get("model.layers.0.self_attn.q_proj.weight", 0)
	kv := r.get("model.layers.0.self_attn.k_proj.weight", 0)
	inter := r.get("model.layers.0.mlp.gate_proj.weight", 0)
	if r.err != nil {
		return nil, fmt.Errorf("qwen3 config: %w", r.err)
	}
	if q%head != 0 || kv%head != 0 {
		return nil, fmt.Errorf("qwen3 config: q/k widths %d/%d are not multiples of head dim %d", q, kv, head)
	}
	layers, err := qwen3Layers(s)
	if err != nil {
		return nil, fmt.Errorf("qwen3 config: %w", err)
	}
	if p.RopeTheta == 0 {
		p.RopeTheta = 1e6
	}
	if p.RMSNormEps == 0 {
		p.RMSNormEps = 1e-6
	}
	if p.MaxPosition == 0 {
		p.MaxPosition = 40960
	}
	cfg := map[string]any{
		"architectures":           []string{"Qwen3ForCausalLM"},
		"model_type":              "qwen3",
		"attention_bias":          s["model.layers.0.self_attn.q_proj.bias"] != nil,
		"head_dim":                head,
		"hidden_act":              "silu",
		"hidden_size":             hidden,
		"intermediate_size":       inter,
		"max_position_embeddings": p.MaxPosition,
		"num_attention_heads":     q / head,
		"num_hidden_layers":       layers,
		"num_key_value_heads":     kv / head,
		"rms_norm_eps":            p.RMSNormEps,
		"rope_theta":              p.RopeTheta,
		"tie_word_embeddings":     s["lm_head.weight"] == nil,
		"use_sliding_window":      false,
		"vocab_size":              vocab,
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// qwen3Layers counts the decoder layers: up to the highest index present, each of which
// must hold every tensor any layer holds. A missing one is named: counting only the layers
// before it left the ones after it out silently, and a hidden state taken from one of them
// failed only at generation (issue 37 item 8).
func qwen3Layers(s Shapes) (int, error) {
	const prefix = "model.layers."
	n, kinds := 0, map[string]bool{}
	for name := range s {
		if i, rest, ok := blockIndex(name, prefix); ok {
			n = max(n, i+1)
			kinds[rest] = true
		}
	}
	names := slices.Sorted(maps.Keys(kinds))
	for i := range n {
		for _, k := range names {
			if _, ok := s[fmt.Sprintf("%s%d.%s", prefix, i, k)]; !ok {
				return 0, fmt.Errorf("tensor %s%d.%s%s is missing (the weights hold layers 0 to %d)", prefix, i, k, llamaAlias(i, k), n-1)
			}
		}
	}
	return n, nil
}

// llamaAlias is " (blk.I.<name> in llama.cpp naming)" for the layer tensor I.k, or "".
func llamaAlias(i int, k string) string {
	for l, t := range llamaBlock {
		if p, ok := strings.CutPrefix(k, t+"."); ok && (p == "weight" || p == "bias") {
			return fmt.Sprintf(" (blk.%d.%s.%s in llama.cpp naming)", i, l, p)
		}
	}
	return ""
}

// VAEConfig infers an AutoencoderKLFlux2 config.json from the VAE's diffusers tensor shapes.
// The GroupNorm group count leaves no trace in the weights: groups = 0 takes FLUX.2's 32.
func VAEConfig(s Shapes, groups int) ([]byte, error) {
	if groups == 0 {
		groups = 32
	}
	r := &dimReader{s: s}
	in := r.get("encoder.conv_in.weight", 1)
	out := r.get("decoder.conv_out.weight", 0)
	latent := r.get("post_quant_conv.weight", 0)
	bn := r.get("bn.running_mean", 0)
	levels := s.count("encoder.down_blocks.%d.resnets.0.conv1.weight")
	perBlock := s.count("encoder.down_blocks.0.resnets.%d.conv1.weight")
	var channels []int
	for i := range levels {
		channels = append(channels, r.get(fmt.Sprintf("encoder.down_blocks.%d.resnets.0.conv1.weight", i), 0))
	}
	if r.err != nil {
		return nil, fmt.Errorf("vae config: %w", r.err)
	}
	patch := 0 // bn normalises the patchified latent: latent * patch^2 channels
	if bn%latent == 0 {
		p := int(math.Sqrt(float64(bn / latent)))
		for _, c := range []int{p - 1, p, p + 1} {
			if c > 0 && c*c == bn/latent {
				patch = c
			}
		}
	}
	if levels == 0 || perBlock == 0 || patch == 0 {
		return nil, fmt.Errorf("vae config: %d levels of %d resnets, latent %d with %d normalised channels", levels, perBlock, latent, bn)
	}
	down, up := make([]string, levels), make([]string, levels)
	for i := range down {
		down[i], up[i] = "DownEncoderBlock2D", "UpDecoderBlock2D"
	}
	cfg := map[string]any{
		"_class_name":             "AutoencoderKLFlux2",
		"act_fn":                  "silu",
		"batch_norm_eps":          1e-4,
		"batch_norm_momentum":     0.1,
		"block_out_channels":      channels,
		"down_block_types":        down,
		"up_block_types":          up,
		"in_channels":             in,
		"out_channels":            out,
		"latent_channels":         latent,
		"layers_per_block":        perBlock,
		"mid_block_add_attention": s["encoder.mid_block.attentions.0.to_q.weight"] != nil,
		"norm_num_groups":         groups,
		"patch_size":              []int{patch, patch},
		"use_quant_conv":          s["quant_conv.weight"] != nil,
		"use_post_quant_conv":     s["post_quant_conv.weight"] != nil,
	}
	return json.MarshalIndent(cfg, "", "  ")
}
