package lora

import (
	"strconv"
	"strings"
)

// Kinds of tensor a key names, by its suffix.
type part int

const (
	partNone  part = iota
	partA          // lora_A.weight / lora_down.weight: [rank, in]
	partB          // lora_B.weight / lora_up.weight: [out, rank]
	partAlpha      // alpha: a scalar
	partW1         // lokr_w1
	partW1A        // lokr_w1_a
	partW1B        // lokr_w1_b
	partW2         // lokr_w2
	partW2A        // lokr_w2_a
	partW2B        // lokr_w2_b
)

// suffixes maps a key suffix to the part it names. Longer suffixes sharing a prefix with
// shorter ones ("lokr_w1_a" and "lokr_w1") are told apart by splitKey's exact match.
var suffixes = map[string]part{
	"lora_A.weight":    partA,
	"lora_B.weight":    partB,
	"lora_down.weight": partA,
	"lora_up.weight":   partB,
	"alpha":            partAlpha,
	"lokr_w1":          partW1,
	"lokr_w1_a":        partW1A,
	"lokr_w1_b":        partW1B,
	"lokr_w2":          partW2,
	"lokr_w2_a":        partW2A,
	"lokr_w2_b":        partW2B,
}

// splitKey splits a tensor name into its module stem and the part the suffix names.
func splitKey(key string) (stem string, p part) {
	for i := len(key) - 1; i > 0; i-- {
		if key[i] != '.' {
			continue
		}
		if p, ok := suffixes[key[i+1:]]; ok {
			return key[:i], p
		}
	}
	return "", partNone
}

// split says how an adapter of one source module is distributed over the target modules.
type split int

const (
	splitNone  split = iota // one target, rows as they are
	splitQKV                // three targets, the output rows cut into equal q | k | v thirds
	swapHalves              // one target whose two row halves are swapped: BFL's (shift, scale) -> diffusers' (scale, shift)
)

// target is where one source module's adapter goes.
type target struct {
	modules []string // diffusers module names (one, or q, k, v for splitQKV)
	split   split
}

// Per-block module names of the FLUX.2 transformer in diffusers (Flux2Transformer2DModel).
var (
	diffusersDouble = []string{
		"attn.to_q", "attn.to_k", "attn.to_v", "attn.to_out.0",
		"attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj", "attn.to_add_out",
		"ff.linear_in", "ff.linear_out", "ff_context.linear_in", "ff_context.linear_out",
	}
	diffusersSingle = []string{"attn.to_qkv_mlp_proj", "attn.to_out"}
	diffusersTop    = []string{
		"x_embedder", "context_embedder",
		"time_guidance_embed.timestep_embedder.linear_1", "time_guidance_embed.timestep_embedder.linear_2",
		"time_guidance_embed.guidance_embedder.linear_1", "time_guidance_embed.guidance_embedder.linear_2",
		"double_stream_modulation_img.linear", "double_stream_modulation_txt.linear",
		"single_stream_modulation.linear", "norm_out.linear", "proj_out",
	}
)

// BFL (original FLUX.2 code, ai-toolkit, ComfyUI) module names and their diffusers targets
// (diffusers/loaders/lora_conversion_utils.py, _convert_non_diffusers_flux2_lora_to_diffusers).
var (
	bflDouble = map[string]target{
		"img_attn.qkv":  {[]string{"attn.to_q", "attn.to_k", "attn.to_v"}, splitQKV},
		"img_attn.proj": {[]string{"attn.to_out.0"}, splitNone},
		"txt_attn.qkv":  {[]string{"attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj"}, splitQKV},
		"txt_attn.proj": {[]string{"attn.to_add_out"}, splitNone},
		"img_mlp.0":     {[]string{"ff.linear_in"}, splitNone},
		"img_mlp.2":     {[]string{"ff.linear_out"}, splitNone},
		"txt_mlp.0":     {[]string{"ff_context.linear_in"}, splitNone},
		"txt_mlp.2":     {[]string{"ff_context.linear_out"}, splitNone},
	}
	// linear1 stays fused: diffusers keeps the single block's to_qkv_mlp_proj as one layer.
	bflSingle = map[string]target{
		"linear1": {[]string{"attn.to_qkv_mlp_proj"}, splitNone},
		"linear2": {[]string{"attn.to_out"}, splitNone},
	}
	bflTop = map[string]target{
		"img_in":                           {[]string{"x_embedder"}, splitNone},
		"txt_in":                           {[]string{"context_embedder"}, splitNone},
		"time_in.in_layer":                 {[]string{"time_guidance_embed.timestep_embedder.linear_1"}, splitNone},
		"time_in.out_layer":                {[]string{"time_guidance_embed.timestep_embedder.linear_2"}, splitNone},
		"guidance_in.in_layer":             {[]string{"time_guidance_embed.guidance_embedder.linear_1"}, splitNone},
		"guidance_in.out_layer":            {[]string{"time_guidance_embed.guidance_embedder.linear_2"}, splitNone},
		"double_stream_modulation_img.lin": {[]string{"double_stream_modulation_img.linear"}, splitNone},
		"double_stream_modulation_txt.lin": {[]string{"double_stream_modulation_txt.linear"}, splitNone},
		"single_stream_modulation.lin":     {[]string{"single_stream_modulation.linear"}, splitNone},
		"final_layer.linear":               {[]string{"proj_out"}, splitNone},
		// diffusers' LoRA converter maps this without swapping lora_B's halves, although its
		// checkpoint converter swaps the base weight's (shift, scale) to (scale, shift): it adds
		// the file's shift delta to the scale and vice versa. We apply what the file means.
		"final_layer.adaLN_modulation.1": {[]string{"norm_out.linear"}, swapHalves},
	}
)

// Qwen3 text-encoder modules (transformers' Qwen3ForCausalLM names under "model.").
var qwenLayer = []string{
	"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
	"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj",
}

// nameTable resolves module names of one naming scheme, dotted or with every '.' written
// as '_' (kohya, LyCORIS).
type nameTable struct {
	blocks map[string]map[string]target // block prefix ("double_blocks") -> per-block name -> target
	top    map[string]target
	// out names the target's block: e.g. "double_blocks" -> "transformer_blocks".
	out map[string]string
}

func identity(names []string) map[string]target {
	m := make(map[string]target, len(names))
	for _, n := range names {
		m[n] = target{modules: []string{n}}
	}
	return m
}

var (
	transformerTables = []nameTable{
		{
			blocks: map[string]map[string]target{"transformer_blocks": identity(diffusersDouble), "single_transformer_blocks": identity(diffusersSingle)},
			top:    identity(diffusersTop),
			out:    map[string]string{"transformer_blocks": "transformer_blocks", "single_transformer_blocks": "single_transformer_blocks"},
		},
		{
			blocks: map[string]map[string]target{"double_blocks": bflDouble, "single_blocks": bflSingle},
			top:    bflTop,
			out:    map[string]string{"double_blocks": "transformer_blocks", "single_blocks": "single_transformer_blocks"},
		},
	}
	textTables = []nameTable{{
		blocks: map[string]map[string]target{"model.layers": identity(qwenLayer)},
		out:    map[string]string{"model.layers": "model.layers"},
	}}
)

// maxBlockIndex bounds block numbers in names (FLUX.2 has at most a few dozen blocks, Qwen3 36).
const maxBlockIndex = 9999

// resolve maps a dotted (or, underscored, with every '.' as '_') module name to its targets.
func (t *nameTable) resolve(name string, underscored bool) (target, bool) {
	key := func(s string) string {
		if underscored {
			return strings.ReplaceAll(s, ".", "_")
		}
		return s
	}
	sep := "."
	if underscored {
		sep = "_"
	}
	for n, tg := range t.top {
		if key(n) == name {
			return tg, true
		}
	}
	for prefix, per := range t.blocks {
		rest, ok := strings.CutPrefix(name, key(prefix)+sep)
		if !ok {
			continue
		}
		num, rest, ok := cutNumber(rest, sep)
		if !ok {
			continue
		}
		for n, tg := range per {
			if key(n) != rest {
				continue
			}
			out := target{split: tg.split, modules: make([]string, len(tg.modules))}
			for i, m := range tg.modules {
				out.modules[i] = t.out[prefix] + "." + strconv.Itoa(num) + "." + m
			}
			return out, true
		}
	}
	return target{}, false
}

// cutNumber takes a canonical decimal block index and the separator after it off s.
func cutNumber(s, sep string) (int, string, bool) {
	digits, rest, ok := strings.Cut(s, sep)
	if !ok || digits == "" || len(digits) > 4 {
		return 0, "", false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || n > maxBlockIndex || strconv.Itoa(n) != digits {
		return 0, "", false
	}
	return n, rest, true
}

// Format is the naming convention of an adapter file, detected from its key prefixes.
type Format int

// The formats Kleinbild reads.
const (
	FormatUnknown   Format = iota
	FormatDiffusers        // diffusers / PEFT: transformer.<diffusers module>.lora_A.weight
	FormatBFL              // BFL / ai-toolkit / ComfyUI: diffusion_model.<BFL module>.lora_A.weight
	FormatKohya            // kohya sd-scripts / musubi: lora_unet_<BFL module with _>.lora_down.weight
	FormatLyCORIS          // LyCORIS wrapper names: lycoris_<diffusers module with _>.lokr_w1
	FormatBare             // SimpleTuner: <diffusers module>.lokr_w1 (no prefix)
)

func (f Format) String() string {
	switch f {
	case FormatDiffusers:
		return "diffusers"
	case FormatBFL:
		return "BFL"
	case FormatKohya:
		return "kohya"
	case FormatLyCORIS:
		return "LyCORIS"
	case FormatBare:
		return "bare diffusers names"
	}
	return "unknown"
}

// Component is the model part an adapted module belongs to.
type Component int

// The components adapters can change.
const (
	Transformer Component = iota
	TextEncoder
)

func (c Component) String() string {
	if c == TextEncoder {
		return "text encoder"
	}
	return "transformer"
}

// prefixRule is one key prefix: the format it marks, the component, and the name scheme.
type prefixRule struct {
	prefix      string
	format      Format
	comp        Component
	underscored bool
}

// Prefix rules, tried in order (the first that matches decides). The format is read from the
// prefix, never from the lora_down/lora_up suffix: diffusers routes BFL-named files that use
// lora_down to its kohya converter, which matches none of their keys.
var prefixRules = []prefixRule{
	{"transformer.", FormatDiffusers, Transformer, false},
	{"diffusion_model.", FormatBFL, Transformer, false},
	{"base_model.model.", FormatBFL, Transformer, false}, // PEFT's own prefix, as diffusers treats it
	{"lora_unet_", FormatKohya, Transformer, true},
	{"lora_transformer_", FormatLyCORIS, Transformer, true},
	{"lycoris_", FormatLyCORIS, Transformer, true},
	{"text_encoder.", FormatDiffusers, TextEncoder, false},
	{"lora_te1_", FormatKohya, TextEncoder, true},
	{"lora_te_", FormatKohya, TextEncoder, true},
	{"", FormatBare, Transformer, false},
}

// resolveStem maps a key stem (the name before the part suffix) to its format, component and
// targets.
func resolveStem(stem string) (prefixRule, target, bool) {
	for _, r := range prefixRules {
		rest, ok := strings.CutPrefix(stem, r.prefix)
		if !ok {
			continue
		}
		tables := transformerTables
		if r.comp == TextEncoder {
			tables = textTables
		}
		for i := range tables {
			if tg, ok := tables[i].resolve(rest, r.underscored); ok {
				return r, tg, true
			}
		}
		if r.prefix != "" {
			return r, target{}, false
		}
	}
	// Bare text-encoder names (model.layers.N....) are left unmatched: without a prefix they
	// cannot be told apart from other models' keys reliably.
	return prefixRules[len(prefixRules)-1], target{}, false
}
