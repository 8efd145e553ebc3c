package remap

import (
	"fmt"
	"strings"
)

// llamaBlock maps llama.cpp's per-layer tensor names (blk.N.<name>) to transformers' Qwen3
// names (model.layers.N.<name>), as ComfyUI-GGUF's LLAMA_SD_MAP and stable-diffusion.cpp's
// llm_name_map do. Qwen3 needs no Q/K row permutation (llama.cpp permutes only arch llama).
var llamaBlock = map[string]string{
	"attn_norm":   "input_layernorm",
	"attn_q":      "self_attn.q_proj",
	"attn_k":      "self_attn.k_proj",
	"attn_v":      "self_attn.v_proj",
	"attn_output": "self_attn.o_proj",
	"attn_q_norm": "self_attn.q_norm",
	"attn_k_norm": "self_attn.k_norm",
	"ffn_norm":    "post_attention_layernorm",
	"ffn_gate":    "mlp.gate_proj",
	"ffn_up":      "mlp.up_proj",
	"ffn_down":    "mlp.down_proj",
}

// llamaGlobal maps llama.cpp's tensors outside the layers. output (the LM head) exists only
// in files with untied embeddings; Qwen3 files tie it to token_embd and omit it.
var llamaGlobal = map[string]string{
	"token_embd":  "model.embed_tokens",
	"output_norm": "model.norm",
	"output":      "lm_head",
}

// DetectTextEncoder tells a Qwen3 text encoder file's naming from its tensor names.
func DetectTextEncoder(names []string) Naming {
	for _, n := range names {
		switch {
		case n == "token_embd.weight", strings.HasPrefix(n, "blk."):
			return LlamaCpp
		case strings.HasPrefix(n, "model.layers."), n == "model.embed_tokens.weight",
			strings.HasPrefix(n, "layers."), n == "embed_tokens.weight":
			return Diffusers
		}
	}
	return Unknown
}

// layerOf returns the decoder layer index of a transformers or llama.cpp name, or -1.
func layerOf(name string) int {
	for _, p := range []string{"model.layers.", "layers.", "blk."} {
		if i, _, ok := blockIndex(name, p); ok {
			return i
		}
	}
	return -1
}

// TextEncoder plans the transformers Qwen3 tensors from a file's tensor names: llama.cpp
// names (token_embd, blk.N.attn_q, ..., output_norm) are renamed; transformers names
// (ComfyUI's qwen_3_4b.safetensors, the diffusers text_encoder folder) map to themselves.
// Decoder layers above maxLayer are left out of the plan (never read); maxLayer < 0 keeps
// all. FLUX.2-klein stacks hidden states 9, 18 and 27, the outputs of layers 8, 17 and 26.
func TextEncoder(names []string, maxLayer int) (Plan, Naming, error) {
	keep := func(n string) bool { l := layerOf(n); return maxLayer < 0 || l <= maxLayer }
	naming := DetectTextEncoder(names)
	switch naming {
	case Diffusers:
		plan := make(Plan, len(names))
		for _, n := range names {
			if keep(n) {
				plan[n] = Source{Name: n}
			}
		}
		return plan, naming, nil
	case Unknown:
		return nil, naming, fmt.Errorf("text encoder: no Qwen3 tensor names found (neither llama.cpp nor transformers naming) among %d tensors", len(names))
	}
	plan := make(Plan, len(names))
	var bad []string
	for _, n := range names {
		t, ok := llamaName(n)
		if !ok {
			bad = append(bad, n)
			continue
		}
		if keep(n) {
			plan[t] = Source{Name: n}
		}
	}
	if len(bad) > 0 {
		return nil, naming, unmapped("text encoder (llama.cpp naming)", bad)
	}
	return plan, naming, nil
}

// llamaName renames one llama.cpp tensor to its transformers name.
func llamaName(name string) (string, bool) {
	module, param, ok := strings.Cut(name, ".")
	if ok && (param == "weight" || param == "bias") {
		if t, found := llamaGlobal[module]; found {
			return t + "." + param, true
		}
	}
	i, rest, ok := blockIndex(name, "blk.")
	if !ok {
		return "", false
	}
	module, param, ok = strings.Cut(rest, ".")
	t, found := llamaBlock[module]
	if !ok || !found || (param != "weight" && param != "bias") {
		return "", false
	}
	return fmt.Sprintf("model.layers.%d.%s.%s", i, t, param), true
}
