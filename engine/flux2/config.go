package flux2

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"kleinbild/internal/safefile"
)

// Config is the transformer's config.json (diffusers Flux2Transformer2DModel constructor
// arguments), with OutChannels resolved (null means InChannels).
type Config struct {
	PatchSize                int     `json:"patch_size"`
	InChannels               int     `json:"in_channels"`
	OutChannels              int     `json:"out_channels"`
	NumLayers                int     `json:"num_layers"`        // double-stream blocks
	NumSingleLayers          int     `json:"num_single_layers"` // single-stream blocks
	AttentionHeadDim         int     `json:"attention_head_dim"`
	NumAttentionHeads        int     `json:"num_attention_heads"`
	JointAttentionDim        int     `json:"joint_attention_dim"` // width of the text embeddings
	TimestepGuidanceChannels int     `json:"timestep_guidance_channels"`
	MLPRatio                 float64 `json:"mlp_ratio"`
	AxesDimsRope             []int   `json:"axes_dims_rope"` // (T, H, W, L) rotary dims per head
	RopeTheta                float64 `json:"rope_theta"`
	Eps                      float64 `json:"eps"`
	GuidanceEmbeds           bool    `json:"guidance_embeds"`
}

// Hidden is the model width (heads × head_dim).
func (c Config) Hidden() int { return c.NumAttentionHeads * c.AttentionHeadDim }

// MLPHidden is the feed-forward inner width, int(hidden·mlp_ratio) as in diffusers.
func (c Config) MLPHidden() int { return int(float64(c.Hidden()) * c.MLPRatio) }

// Blocks is the total number of transformer blocks (double then single).
func (c Config) Blocks() int { return c.NumLayers + c.NumSingleLayers }

// rawConfig mirrors config.json with pointers so that missing fields can be told from zeros.
type rawConfig struct {
	PatchSize                *int     `json:"patch_size"`
	InChannels               *int     `json:"in_channels"`
	OutChannels              *int     `json:"out_channels"`
	NumLayers                *int     `json:"num_layers"`
	NumSingleLayers          *int     `json:"num_single_layers"`
	AttentionHeadDim         *int     `json:"attention_head_dim"`
	NumAttentionHeads        *int     `json:"num_attention_heads"`
	JointAttentionDim        *int     `json:"joint_attention_dim"`
	TimestepGuidanceChannels *int     `json:"timestep_guidance_channels"`
	MLPRatio                 *float64 `json:"mlp_ratio"`
	AxesDimsRope             []int    `json:"axes_dims_rope"`
	RopeTheta                *float64 `json:"rope_theta"`
	Eps                      *float64 `json:"eps"`
	GuidanceEmbeds           *bool    `json:"guidance_embeds"`
}

// LoadConfig reads and validates a transformer config.json, given the file or the folder
// holding it (as qwen3.LoadConfig and vae.LoadConfig take theirs). The fields that define tensor
// shapes (in_channels, num_layers, num_single_layers, attention_head_dim,
// num_attention_heads, joint_attention_dim, axes_dims_rope) are required; the others take
// diffusers' defaults when absent (patch_size 1, out_channels = in_channels,
// timestep_guidance_channels 256, mlp_ratio 3, rope_theta 2000, eps 1e-6).
func LoadConfig(path string) (Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return Config{}, fmt.Errorf("flux2 config: %w", err)
	}
	c, err := parseConfig(raw)
	if err != nil {
		return Config{}, fmt.Errorf("flux2 config %s: %w", path, err)
	}
	return c, nil
}

func parseConfig(data []byte) (Config, error) {
	var r rawConfig
	if err := json.Unmarshal(data, &r); err != nil {
		return Config{}, fmt.Errorf("malformed JSON: %w", err)
	}
	var missing []string
	req := func(name string, p *int) int {
		if p == nil {
			missing = append(missing, name)
			return 0
		}
		return *p
	}
	c := Config{
		InChannels:        req("in_channels", r.InChannels),
		NumLayers:         req("num_layers", r.NumLayers),
		NumSingleLayers:   req("num_single_layers", r.NumSingleLayers),
		AttentionHeadDim:  req("attention_head_dim", r.AttentionHeadDim),
		NumAttentionHeads: req("num_attention_heads", r.NumAttentionHeads),
		JointAttentionDim: req("joint_attention_dim", r.JointAttentionDim),
		AxesDimsRope:      r.AxesDimsRope,
	}
	if r.AxesDimsRope == nil {
		missing = append(missing, "axes_dims_rope")
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("missing required fields %v", missing)
	}
	c.PatchSize = deref(r.PatchSize, 1)
	c.OutChannels = deref(r.OutChannels, c.InChannels)
	c.TimestepGuidanceChannels = deref(r.TimestepGuidanceChannels, 256)
	c.MLPRatio = deref(r.MLPRatio, 3.0)
	c.RopeTheta = deref(r.RopeTheta, 2000)
	c.Eps = deref(r.Eps, 1e-6)
	c.GuidanceEmbeds = deref(r.GuidanceEmbeds, false)
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// maxDim bounds every size so that products of a few of them cannot overflow.
const maxDim = 1 << 20

func (c Config) validate() error {
	var errs []error
	pos := func(name string, v int) {
		if v <= 0 || v > maxDim {
			errs = append(errs, fmt.Errorf("%s = %d, want 1..%d", name, v, maxDim))
		}
	}
	pos("in_channels", c.InChannels)
	pos("out_channels", c.OutChannels)
	pos("attention_head_dim", c.AttentionHeadDim)
	pos("num_attention_heads", c.NumAttentionHeads)
	pos("joint_attention_dim", c.JointAttentionDim)
	pos("timestep_guidance_channels", c.TimestepGuidanceChannels)
	if c.NumLayers < 0 || c.NumLayers > 1000 || c.NumSingleLayers < 0 || c.NumSingleLayers > 1000 {
		errs = append(errs, fmt.Errorf("num_layers %d / num_single_layers %d out of range", c.NumLayers, c.NumSingleLayers))
	}
	if c.PatchSize != 1 {
		errs = append(errs, fmt.Errorf("patch_size %d is not supported (FLUX.2 packs 2×2 patches outside the transformer; want 1)", c.PatchSize))
	}
	if c.GuidanceEmbeds {
		errs = append(errs, errors.New("guidance_embeds true (guidance-distilled FLUX.2-dev) is not supported; FLUX.2-klein has false"))
	}
	if c.TimestepGuidanceChannels%2 != 0 {
		errs = append(errs, fmt.Errorf("timestep_guidance_channels %d must be even", c.TimestepGuidanceChannels))
	}
	if len(c.AxesDimsRope) != 4 {
		errs = append(errs, fmt.Errorf("axes_dims_rope %v must have 4 entries (T, H, W, L)", c.AxesDimsRope))
	} else {
		sum := 0
		for _, a := range c.AxesDimsRope {
			if a <= 0 || a%2 != 0 || a > maxDim {
				errs = append(errs, fmt.Errorf("axes_dims_rope %v: every entry must be positive and even", c.AxesDimsRope))
				break
			}
			sum += a
		}
		if sum != c.AttentionHeadDim {
			errs = append(errs, fmt.Errorf("axes_dims_rope %v sums to %d, want attention_head_dim %d", c.AxesDimsRope, sum, c.AttentionHeadDim))
		}
	}
	if !(c.MLPRatio > 0) || math.IsInf(c.MLPRatio, 0) || c.MLPRatio > 64 {
		errs = append(errs, fmt.Errorf("mlp_ratio %v out of range", c.MLPRatio))
	} else if c.AttentionHeadDim > 0 && c.NumAttentionHeads > 0 && c.Hidden() <= maxDim && c.MLPHidden() <= 0 {
		errs = append(errs, fmt.Errorf("mlp_ratio %v gives an empty feed-forward", c.MLPRatio))
	}
	if c.Hidden() > maxDim {
		errs = append(errs, fmt.Errorf("hidden size %d×%d too large", c.NumAttentionHeads, c.AttentionHeadDim))
	}
	if !(c.RopeTheta > 0) || math.IsInf(c.RopeTheta, 0) {
		errs = append(errs, fmt.Errorf("rope_theta %v must be positive", c.RopeTheta))
	}
	if !(c.Eps > 0) || c.Eps > 1 {
		errs = append(errs, fmt.Errorf("eps %v out of range", c.Eps))
	}
	return errors.Join(errs...)
}

// ParseConfig validates the text of a transformer config.json (as LoadConfig does for a
// file), e.g. one inferred from a single weights file.
func ParseConfig(data []byte) (Config, error) { return parseConfig(data) }
