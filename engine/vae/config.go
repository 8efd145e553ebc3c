package vae

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kleinbild/internal/safefile"
)

// Config is the subset of diffusers' AutoencoderKLFlux2 config.json that shapes the network.
type Config struct {
	InChannels     int `json:"in_channels"`
	OutChannels    int `json:"out_channels"`
	LatentChannels int `json:"latent_channels"`
	// BlockOutChannels are the encoder's channels per resolution level, finest first.
	BlockOutChannels []int `json:"block_out_channels"`
	// DecoderBlockOutChannels, when set, replaces BlockOutChannels for the decoder.
	DecoderBlockOutChannels []int    `json:"decoder_block_out_channels"`
	DownBlockTypes          []string `json:"down_block_types"`
	UpBlockTypes            []string `json:"up_block_types"`
	LayersPerBlock          int      `json:"layers_per_block"`
	NormNumGroups           int      `json:"norm_num_groups"`
	ActFn                   string   `json:"act_fn"`
	MidBlockAddAttention    bool     `json:"mid_block_add_attention"`
	UseQuantConv            bool     `json:"use_quant_conv"`
	UsePostQuantConv        bool     `json:"use_post_quant_conv"`
	BatchNormEps            float64  `json:"batch_norm_eps"`
	PatchSize               []int    `json:"patch_size"`
}

// defaultConfig holds the AutoencoderKLFlux2 constructor defaults, used for keys a
// config.json omits.
func defaultConfig() Config {
	return Config{
		InChannels:           3,
		OutChannels:          3,
		LatentChannels:       32,
		BlockOutChannels:     []int{128, 256, 512, 512},
		DownBlockTypes:       []string{"DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D"},
		UpBlockTypes:         []string{"UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"},
		LayersPerBlock:       2,
		NormNumGroups:        32,
		ActFn:                "silu",
		MidBlockAddAttention: true,
		UseQuantConv:         true,
		UsePostQuantConv:     true,
		BatchNormEps:         1e-4,
		PatchSize:            []int{2, 2},
	}
}

// LoadConfig reads and validates a VAE config.json. path may be the file or the folder
// holding it.
func LoadConfig(path string) (Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "config.json")
	}
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if err != nil {
		return Config{}, fmt.Errorf("read VAE config: %w", err)
	}
	cfg, err := parseConfig(raw)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// parseConfig decodes and validates the text of a VAE config.json: a JSON object whose
// absent keys take the AutoencoderKLFlux2 defaults.
func parseConfig(raw []byte) (Config, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return Config{}, errors.New("malformed VAE config: want a JSON object")
	}
	cfg := defaultConfig()
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return Config{}, fmt.Errorf("malformed VAE config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// DecoderChannels returns the decoder's channels per level, finest first.
func (c Config) DecoderChannels() []int {
	if len(c.DecoderBlockOutChannels) > 0 {
		return c.DecoderBlockOutChannels
	}
	return c.BlockOutChannels
}

// ScaleFactor is the ratio of image to latent side (8 for FLUX.2).
func (c Config) ScaleFactor() int { return 1 << (len(c.BlockOutChannels) - 1) }

// PatchedChannels is the channel count of patchified latents (128 for FLUX.2).
func (c Config) PatchedChannels() int { return 4 * c.LatentChannels }

// Bounds on config.json sizes: far above FLUX.2's VAE (2 layers per block, at most 512
// channels) and low enough that nothing sized by them is absurd before the checkpoint's
// tensors are compared with them.
const (
	maxLayersPerBlock = 64
	maxChannels       = 1 << 16
)

// Validate checks that the config describes a network this package implements.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, f := range []struct {
		name string
		v    int
	}{{"in_channels", c.InChannels}, {"out_channels", c.OutChannels}, {"latent_channels", c.LatentChannels}} {
		if f.v <= 0 || f.v > maxChannels {
			bad("%s %d must be in 1..%d", f.name, f.v, maxChannels)
		}
	}
	if c.LayersPerBlock <= 0 || c.LayersPerBlock > maxLayersPerBlock {
		bad("layers_per_block %d must be in 1..%d", c.LayersPerBlock, maxLayersPerBlock)
	}
	if c.NormNumGroups <= 0 || c.NormNumGroups > maxChannels {
		bad("norm_num_groups %d must be in 1..%d", c.NormNumGroups, maxChannels)
	}
	if c.ActFn != "silu" && c.ActFn != "swish" {
		bad("act_fn %q is not supported (want silu)", c.ActFn)
	}
	if !(c.BatchNormEps >= 0 && c.BatchNormEps <= 1) {
		bad("batch_norm_eps %v must be in [0, 1]", c.BatchNormEps)
	}
	if len(c.PatchSize) != 2 || c.PatchSize[0] != 2 || c.PatchSize[1] != 2 {
		bad("patch_size %v is not supported (want [2, 2])", c.PatchSize)
	}
	n := len(c.BlockOutChannels)
	if n == 0 || n > 8 {
		bad("block_out_channels %v must have 1 to 8 levels", c.BlockOutChannels)
	}
	if len(c.DecoderBlockOutChannels) > 0 && len(c.DecoderBlockOutChannels) != n {
		bad("decoder_block_out_channels %v must have as many levels as block_out_channels %v", c.DecoderBlockOutChannels, c.BlockOutChannels)
	}
	if len(c.DownBlockTypes) != n || len(c.UpBlockTypes) != n {
		bad("down_block_types (%d) and up_block_types (%d) must have one entry per level (%d)", len(c.DownBlockTypes), len(c.UpBlockTypes), n)
	}
	for _, t := range c.DownBlockTypes {
		if t != "DownEncoderBlock2D" {
			bad("down block type %q is not supported", t)
		}
	}
	for _, t := range c.UpBlockTypes {
		if t != "UpDecoderBlock2D" {
			bad("up block type %q is not supported", t)
		}
	}
	for _, chans := range [][]int{c.BlockOutChannels, c.DecoderBlockOutChannels} {
		for _, ch := range chans {
			if ch <= 0 || ch > maxChannels || (c.NormNumGroups > 0 && ch%c.NormNumGroups != 0) {
				bad("block channel count %d must be a positive multiple of norm_num_groups %d, at most %d", ch, c.NormNumGroups, maxChannels)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid VAE config: %w", errors.Join(errs...))
	}
	return nil
}

// ParseConfig validates the text of a VAE config.json (as LoadConfig does for a file), e.g.
// one inferred from a single weights file.
func ParseConfig(data []byte) (Config, error) { return parseConfig(data) }
