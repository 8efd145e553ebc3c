package qwen3

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"kleinbild/internal/safefile"
)

// Config is the part of a transformers Qwen3 config.json the encoder uses, validated.
type Config struct {
	VocabSize             int
	HiddenSize            int
	IntermediateSize      int
	NumHiddenLayers       int
	NumAttentionHeads     int
	NumKeyValueHeads      int
	HeadDim               int     // hidden_size / num_attention_heads when absent
	MaxPositionEmbeddings int     // 0 when absent (no limit)
	RMSNormEps            float64 // applied in float32, as transformers does
	RopeTheta             float64
	AttentionBias         bool // q/k/v/o projections carry biases
}

// QDim is the width of the query projection (num_attention_heads · head_dim).
func (c Config) QDim() int { return c.NumAttentionHeads * c.HeadDim }

// KVDim is the width of the key and value projections (num_key_value_heads · head_dim).
func (c Config) KVDim() int { return c.NumKeyValueHeads * c.HeadDim }

// knownFields lists every key a Qwen3 config.json written by transformers may carry: the
// Qwen3Config arguments plus the generic fields PretrainedConfig serialises. Anything else is
// rejected, so that a config of another model family (or a typo) cannot load silently.
var knownFields = map[string]bool{
	"architectures": true, "model_type": true, "transformers_version": true, "torch_dtype": true,
	"dtype": true, "_name_or_path": true, "bos_token_id": true, "eos_token_id": true,
	"pad_token_id": true, "tie_word_embeddings": true, "use_cache": true, "initializer_range": true,
	"vocab_size": true, "hidden_size": true, "intermediate_size": true, "num_hidden_layers": true,
	"num_attention_heads": true, "num_key_value_heads": true, "head_dim": true, "hidden_act": true,
	"max_position_embeddings": true, "rms_norm_eps": true, "rope_theta": true, "rope_scaling": true,
	"rope_parameters": true, "attention_bias": true, "attention_dropout": true,
	"use_sliding_window": true, "sliding_window": true, "max_window_layers": true, "layer_types": true,
}

// Upper bounds on the sizes config.json may give: far above every Qwen3 model (at most
// 151936 tokens, width 5120, 25600 in the MLP, 64 layers of 64 heads of 128), and low
// enough that products of two cannot overflow and nothing sized by them is absurd. The
// tensors of the checkpoint must then match (see Load).
const (
	maxVocabSize = 1 << 20
	maxWidth     = 1 << 18
	maxHeads     = 1 << 10
	maxHeadDim   = 1 << 12
	// MaxLayers bounds num_hidden_layers.
	MaxLayers = 1 << 10
)

// knownArchitectures are the transformers classes whose weights this package reads.
var knownArchitectures = map[string]bool{"Qwen3ForCausalLM": true, "Qwen3Model": true}

// rawConfig mirrors the fields of config.json that are checked or used; pointers tell a
// missing field from a zero one.
type rawConfig struct {
	Architectures         []string        `json:"architectures"`
	ModelType             *string         `json:"model_type"`
	VocabSize             *int            `json:"vocab_size"`
	HiddenSize            *int            `json:"hidden_size"`
	IntermediateSize      *int            `json:"intermediate_size"`
	NumHiddenLayers       *int            `json:"num_hidden_layers"`
	NumAttentionHeads     *int            `json:"num_attention_heads"`
	NumKeyValueHeads      *int            `json:"num_key_value_heads"`
	HeadDim               *int            `json:"head_dim"`
	HiddenAct             *string         `json:"hidden_act"`
	MaxPositionEmbeddings *int            `json:"max_position_embeddings"`
	RMSNormEps            *float64        `json:"rms_norm_eps"`
	RopeTheta             *float64        `json:"rope_theta"`
	RopeScaling           *ropeParameters `json:"rope_scaling"`
	RopeParameters        *ropeParameters `json:"rope_parameters"`
	AttentionBias         *bool           `json:"attention_bias"`
	UseSlidingWindow      *bool           `json:"use_sliding_window"`
	LayerTypes            []string        `json:"layer_types"`
}

// ropeParameters is rope_scaling (transformers 4.x) or rope_parameters (5.x).
type ropeParameters struct {
	RopeType  string   `json:"rope_type"`
	Type      string   `json:"type"` // older spelling of rope_type
	RopeTheta *float64 `json:"rope_theta"`
}

// LoadConfig reads and validates a Qwen3 config.json. path is the file or the folder that
// holds it. Errors name the file and the offending field.
func LoadConfig(path string) (Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	data, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return Config{}, fmt.Errorf("qwen3 config: %w", err)
	}
	cfg, err := parseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("qwen3 config %s: %w", path, err)
	}
	return cfg, nil
}

// parseConfig validates the JSON text of a Qwen3 config.json.
func parseConfig(data []byte) (Config, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return Config{}, fmt.Errorf("malformed config JSON: %w", err)
	}
	if fields == nil {
		return Config{}, errors.New("config JSON is not an object")
	}
	var unknown []string
	for k := range fields {
		if !knownFields[k] {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Config{}, fmt.Errorf("unknown field %s: not a Qwen3 config field", strings.Join(unknown, ", "))
	}
	var raw rawConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Config{}, fmt.Errorf("field %q: JSON %s where %s is expected", te.Field, te.Value, te.Type)
		}
		return Config{}, fmt.Errorf("malformed config JSON: %w", err)
	}
	return raw.validate()
}

func (r *rawConfig) validate() (Config, error) {
	if r.ModelType == nil {
		return Config{}, errors.New(`field "model_type" is missing (want "qwen3")`)
	}
	if *r.ModelType != "qwen3" {
		return Config{}, fmt.Errorf(`field "model_type" is %q, want "qwen3"`, *r.ModelType)
	}
	for _, a := range r.Architectures {
		if !knownArchitectures[a] {
			return Config{}, fmt.Errorf(`field "architectures": unknown architecture %q (want Qwen3ForCausalLM or Qwen3Model)`, a)
		}
	}
	var c Config
	for _, f := range []struct {
		name string
		src  *int
		dst  *int
		max  int
	}{
		{"vocab_size", r.VocabSize, &c.VocabSize, maxVocabSize},
		{"hidden_size", r.HiddenSize, &c.HiddenSize, maxWidth},
		{"intermediate_size", r.IntermediateSize, &c.IntermediateSize, maxWidth},
		{"num_hidden_layers", r.NumHiddenLayers, &c.NumHiddenLayers, MaxLayers},
		{"num_attention_heads", r.NumAttentionHeads, &c.NumAttentionHeads, maxHeads},
		{"num_key_value_heads", r.NumKeyValueHeads, &c.NumKeyValueHeads, maxHeads},
	} {
		if f.src == nil {
			return Config{}, fmt.Errorf("field %q is missing", f.name)
		}
		if *f.src <= 0 || *f.src > f.max {
			return Config{}, fmt.Errorf("field %q is %d, want 1..%d", f.name, *f.src, f.max)
		}
		*f.dst = *f.src
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return Config{}, fmt.Errorf(`field "num_attention_heads" (%d) is not a multiple of "num_key_value_heads" (%d)`,
			c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if r.HeadDim != nil {
		c.HeadDim = *r.HeadDim
	} else {
		if c.HiddenSize%c.NumAttentionHeads != 0 {
			return Config{}, fmt.Errorf(`field "head_dim" is missing and "hidden_size" (%d) is not a multiple of "num_attention_heads" (%d)`,
				c.HiddenSize, c.NumAttentionHeads)
		}
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if c.HeadDim <= 0 || c.HeadDim > maxHeadDim || c.HeadDim%2 != 0 {
		return Config{}, fmt.Errorf(`field "head_dim" is %d, want an even integer in 2..%d (rotary embeddings pair its halves)`, c.HeadDim, maxHeadDim)
	}
	if c.QDim() > maxWidth {
		return Config{}, fmt.Errorf(`fields "num_attention_heads" × "head_dim" = %d×%d, want at most %d`, c.NumAttentionHeads, c.HeadDim, maxWidth)
	}
	if r.HiddenAct != nil && *r.HiddenAct != "silu" {
		return Config{}, fmt.Errorf(`field "hidden_act" is %q, only "silu" is supported`, *r.HiddenAct)
	}
	if r.MaxPositionEmbeddings != nil {
		if *r.MaxPositionEmbeddings < 0 {
			return Config{}, fmt.Errorf(`field "max_position_embeddings" is %d, want >= 0`, *r.MaxPositionEmbeddings)
		}
		c.MaxPositionEmbeddings = *r.MaxPositionEmbeddings
	}
	if r.RMSNormEps == nil {
		return Config{}, errors.New(`field "rms_norm_eps" is missing`)
	}
	if !(*r.RMSNormEps > 0 && *r.RMSNormEps < 1) {
		return Config{}, fmt.Errorf(`field "rms_norm_eps" is %g, want a small positive number`, *r.RMSNormEps)
	}
	c.RMSNormEps = *r.RMSNormEps
	if err := r.rope(&c); err != nil {
		return Config{}, err
	}
	if r.AttentionBias != nil {
		c.AttentionBias = *r.AttentionBias
	}
	if r.UseSlidingWindow != nil && *r.UseSlidingWindow {
		return Config{}, errors.New(`field "use_sliding_window" is true: sliding-window attention is not supported`)
	}
	if r.LayerTypes != nil {
		if len(r.LayerTypes) != c.NumHiddenLayers {
			return Config{}, fmt.Errorf(`field "layer_types" has %d entries, "num_hidden_layers" is %d`, len(r.LayerTypes), c.NumHiddenLayers)
		}
		for i, t := range r.LayerTypes {
			if t != "full_attention" {
				return Config{}, fmt.Errorf(`field "layer_types[%d]" is %q: only "full_attention" is supported`, i, t)
			}
		}
	}
	return c, nil
}

// rope sets RopeTheta from rope_theta (transformers 4.x) or rope_parameters.rope_theta (5.x)
// and rejects every RoPE variant but the default one.
func (r *rawConfig) rope(c *Config) error {
	for _, p := range []struct {
		field string
		v     *ropeParameters
	}{{"rope_scaling", r.RopeScaling}, {"rope_parameters", r.RopeParameters}} {
		if p.v == nil {
			continue
		}
		typ := p.v.RopeType
		if typ == "" {
			typ = p.v.Type
		}
		if typ != "" && typ != "default" {
			return fmt.Errorf("field %q: RoPE type %q is not supported (only \"default\")", p.field, typ)
		}
	}
	switch {
	case r.RopeTheta != nil:
		c.RopeTheta = *r.RopeTheta
	case r.RopeParameters != nil && r.RopeParameters.RopeTheta != nil:
		c.RopeTheta = *r.RopeParameters.RopeTheta
	default:
		return errors.New(`field "rope_theta" is missing`)
	}
	if !(c.RopeTheta > 1) {
		return fmt.Errorf(`field "rope_theta" is %g, want a number > 1`, c.RopeTheta)
	}
	return nil
}

// ParseConfig validates the text of a Qwen3 config.json (as LoadConfig does for a file),
// e.g. one inferred from a single weights file.
func ParseConfig(data []byte) (Config, error) { return parseConfig(data) }
