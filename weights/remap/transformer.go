package remap

import (
	"fmt"
	"strings"
)

// SDCppPrefix is the prefix stable-diffusion.cpp gives transformer tensor names (and ComfyUI
// gives them in whole-model checkpoints). ComfyUI-GGUF files and BFL's own files have none.
const SDCppPrefix = "model.diffusion_model."

// bflGlobal maps BFL module paths outside the blocks to diffusers module paths.
var bflGlobal = map[string]string{
	"img_in":                           "x_embedder",
	"txt_in":                           "context_embedder",
	"time_in.in_layer":                 "time_guidance_embed.timestep_embedder.linear_1",
	"time_in.out_layer":                "time_guidance_embed.timestep_embedder.linear_2",
	"guidance_in.in_layer":             "time_guidance_embed.guidance_embedder.linear_1",
	"guidance_in.out_layer":            "time_guidance_embed.guidance_embedder.linear_2",
	"double_stream_modulation_img.lin": "double_stream_modulation_img.linear",
	"double_stream_modulation_txt.lin": "double_stream_modulation_txt.linear",
	"single_stream_modulation.lin":     "single_stream_modulation.linear",
	"final_layer.linear":               "proj_out",
	"final_layer.adaLN_modulation.1":   "norm_out.linear", // halves swapped
}

// bflDouble maps module paths inside double_blocks.N to paths inside transformer_blocks.N.
var bflDouble = map[string]string{
	"img_attn.norm.query_norm": "attn.norm_q",
	"img_attn.norm.key_norm":   "attn.norm_k",
	"img_attn.proj":            "attn.to_out.0",
	"img_mlp.0":                "ff.linear_in",
	"img_mlp.2":                "ff.linear_out",
	"txt_attn.norm.query_norm": "attn.norm_added_q",
	"txt_attn.norm.key_norm":   "attn.norm_added_k",
	"txt_attn.proj":            "attn.to_add_out",
	"txt_mlp.0":                "ff_context.linear_in",
	"txt_mlp.2":                "ff_context.linear_out",
}

// bflQKV are the fused projections of a double block, split in three.
var bflQKV = map[string][3]string{
	"img_attn.qkv": {"attn.to_q", "attn.to_k", "attn.to_v"},
	"txt_attn.qkv": {"attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj"},
}

// bflSingle maps module paths inside single_blocks.N to paths inside single_transformer_blocks.N.
// linear1 stays fused: diffusers' to_qkv_mlp_proj is the same [3H+2M, H] matrix.
var bflSingle = map[string]string{
	"linear1":         "attn.to_qkv_mlp_proj",
	"linear2":         "attn.to_out",
	"norm.query_norm": "attn.norm_q",
	"norm.key_norm":   "attn.norm_k",
}

// splitParam splits "module.param" into the module path and the parameter name, with BFL's
// RMSNorm "scale" renamed to diffusers' "weight".
func splitParam(name string) (module, param string, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", "", false
	}
	module, param = name[:i], name[i+1:]
	switch param {
	case "weight", "bias":
	case "scale":
		param = "weight"
	default:
		return "", "", false
	}
	return module, param, true
}

// BFLTransformerName returns the diffusers sources made from one BFL transformer tensor
// (name without prefix): one target, or three for a fused double-block qkv. ok is false for
// a name FLUX.2 does not have.
func BFLTransformerName(name string) (targets []string, sources []Source, ok bool) {
	module, param, ok := splitParam(name)
	if !ok {
		return nil, nil, false
	}
	one := func(target string, op Op) ([]string, []Source, bool) {
		return []string{target + "." + param}, []Source{{Name: name, Op: op}}, true
	}
	if t, found := bflGlobal[module]; found {
		if module == "final_layer.adaLN_modulation.1" {
			return one(t, SwapHalves)
		}
		return one(t, Copy)
	}
	if i, rest, found := blockIndex(module, "double_blocks."); found {
		prefix := fmt.Sprintf("transformer_blocks.%d.", i)
		if t, found := bflDouble[rest]; found {
			return one(prefix+t, Copy)
		}
		if qkv, found := bflQKV[rest]; found {
			for part, t := range qkv {
				targets = append(targets, prefix+t+"."+param)
				sources = append(sources, Source{Name: name, Op: Chunk, Part: part, Parts: 3})
			}
			return targets, sources, true
		}
	}
	if i, rest, found := blockIndex(module, "single_blocks."); found {
		if t := bflSingle[rest]; t != "" {
			return one(fmt.Sprintf("single_transformer_blocks.%d.%s", i, t), Copy)
		}
	}
	return nil, nil, false
}

// DetectTransformer tells a FLUX.2 transformer file's naming from its tensor names.
func DetectTransformer(names []string) Naming {
	for _, n := range names {
		n = strings.TrimPrefix(n, SDCppPrefix)
		switch {
		case strings.HasPrefix(n, "double_blocks."), strings.HasPrefix(n, "single_blocks."),
			strings.HasPrefix(n, "double_stream_modulation_img.lin."):
			return BFL
		case strings.HasPrefix(n, "transformer_blocks."), strings.HasPrefix(n, "single_transformer_blocks."),
			strings.HasPrefix(n, "x_embedder."):
			return Diffusers
		}
	}
	return Unknown
}

// Transformer plans the diffusers transformer tensors from a file's tensor names: BFL names,
// bare (BFL single files, ComfyUI-GGUF) or with SDCppPrefix (stable-diffusion.cpp), are
// renamed, each double block's fused qkv is split into q, k and v, and the final layer's
// modulation halves are swapped; diffusers names map to themselves. A name that belongs to
// neither is an error, as is a file mixing both.
func Transformer(names []string) (Plan, Naming, error) {
	naming := DetectTransformer(names)
	switch naming {
	case Diffusers:
		return identity(names), naming, nil
	case Unknown:
		return nil, naming, fmt.Errorf("transformer: no FLUX.2 transformer tensor names found (neither BFL nor diffusers naming) among %d tensors", len(names))
	}
	plan := make(Plan, len(names)+len(names)/4)
	var bad []string
	for _, n := range names {
		targets, sources, ok := BFLTransformerName(strings.TrimPrefix(n, SDCppPrefix))
		if !ok {
			bad = append(bad, n)
			continue
		}
		for i, t := range targets {
			if prev, dup := plan[t]; dup {
				return nil, naming, fmt.Errorf("transformer: %s and %s both give %s", prev.Name, n, t)
			}
			sources[i].Name = n
			plan[t] = sources[i]
		}
	}
	if len(bad) > 0 {
		return nil, naming, unmapped("transformer (BFL naming)", bad)
	}
	return plan, naming, nil
}
