// Package estimate answers "will it fit, and how long will it take" before a generation: it
// compares a model's memory needs at a given image size with the RAM available, and
// estimates the time of a job from the work of each phase (FLOPs, and the attention scores,
// convolution columns and activation values that cost time beyond their FLOPs) at kernel
// rates measured on this machine (Calibrate), corrected per model by the phase times of
// measured runs (Calibration.WithRun).
//
// The memory model follows what the engine allocates: the transformer's per-call scratch
// (kept between calls), the text encoder's activations, the VAE's three rotating
// full-resolution buffers, plus the weight pages each phase touches (weights are
// memory-mapped: pages of a phase not running can be evicted and are re-read from disk).
package estimate

import (
	"fmt"
	"slices"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
)

// Model is what the estimate needs to know about a model: its network shapes and the sizes
// of its weight files.
type Model struct {
	// Name is "klein-4B", "klein-9B" or "custom"; Distilled models default to
	// engine.DefaultStepsDistilled steps without guidance, base models to DefaultStepsBase
	// steps with DefaultGuidance.
	Name      string
	Distilled bool

	Transformer flux2.Config
	VAE         vae.Config
	Encoder     qwen3.Config

	// Weight file sizes in bytes. Zero means "compute from the config" (bf16 weights).
	TransformerBytes, VAEBytes, EncoderBytes int64
}

// ForFolder is ForSource on a model folder as engine.Inspect found it.
func ForFolder(info engine.ModelInfo) (Model, error) {
	return ForSource(engine.FolderSource(info))
}

// ForSource reads the configs and weight sizes of a model.
func ForSource(src engine.Source) (Model, error) {
	info := src.Info()
	if err := info.MissingError(); err != nil {
		return Model{}, err
	}
	m := Model{Name: info.Name, Distilled: info.Distilled}
	var err error
	if m.Transformer, err = src.TransformerConfig(); err != nil {
		return Model{}, err
	}
	if m.VAE, err = src.VAEConfig(); err != nil {
		return Model{}, err
	}
	if m.Encoder, err = src.EncoderConfig(); err != nil {
		return Model{}, err
	}
	m.TransformerBytes = src.WeightBytes(engine.Transformer)
	m.VAEBytes = src.WeightBytes(engine.VAE)
	m.EncoderBytes = src.WeightBytes(engine.TextEncoder)
	return m, nil
}

// Preset returns the published FLUX.2-klein models ("klein-4B" or "klein-9B", as
// engine.ModelInfo.Name spells them), for estimates before a model is downloaded.
func Preset(name string, distilled bool) (Model, error) {
	base := flux2.Config{
		PatchSize: 1, InChannels: 128, OutChannels: 128, AttentionHeadDim: 128,
		TimestepGuidanceChannels: 256, MLPRatio: 3, AxesDimsRope: []int{32, 32, 32, 32},
		RopeTheta: 2000, Eps: 1e-6,
	}
	enc := qwen3.Config{
		VocabSize: 151936, NumHiddenLayers: 36, NumAttentionHeads: 32, NumKeyValueHeads: 8,
		HeadDim: 128, RMSNormEps: 1e-6, RopeTheta: 1e6,
	}
	m := Model{Name: name, Distilled: distilled, VAE: fluxVAE()}
	switch name {
	case "klein-4B":
		base.NumLayers, base.NumSingleLayers, base.NumAttentionHeads, base.JointAttentionDim = 5, 20, 24, 7680
		enc.HiddenSize, enc.IntermediateSize = 2560, 9728
		m.EncoderBytes = 2 * encoderParams(enc, true) // tied embeddings: no lm_head
	case "klein-9B":
		base.NumLayers, base.NumSingleLayers, base.NumAttentionHeads, base.JointAttentionDim = 8, 24, 32, 12288
		enc.HiddenSize, enc.IntermediateSize = 4096, 12288
		m.EncoderBytes = 2 * encoderParams(enc, false) // Qwen3-8B stores its lm_head
	default:
		return Model{}, fmt.Errorf("no preset for model %q (known: klein-4B, klein-9B)", name)
	}
	m.Transformer, m.Encoder = base, enc
	return m, nil
}

// fluxVAE is AutoencoderKLFlux2's configuration in the FLUX.2 releases.
func fluxVAE() vae.Config {
	return vae.Config{
		InChannels: 3, OutChannels: 3, LatentChannels: 32,
		BlockOutChannels: []int{128, 256, 512, 512},
		DownBlockTypes:   slices.Repeat([]string{"DownEncoderBlock2D"}, 4),
		UpBlockTypes:     slices.Repeat([]string{"UpDecoderBlock2D"}, 4),
		LayersPerBlock:   2, NormNumGroups: 32, ActFn: "silu", MidBlockAddAttention: true,
		UseQuantConv: true, UsePostQuantConv: true, BatchNormEps: 1e-4, PatchSize: []int{2, 2},
	}
}

// transformerBytes, vaeBytes and encoderFileBytes are the weight sizes, from the files when
// known, else from the configs in bf16.
func (m Model) transformerBytes() int64 {
	if m.TransformerBytes > 0 {
		return m.TransformerBytes
	}
	return 2 * transformerParams(m.Transformer)
}

func (m Model) vaeBytes() int64 {
	if m.VAEBytes > 0 {
		return m.VAEBytes
	}
	return 2 * vaeParams(m.VAE)
}

func (m Model) encoderFileBytes() int64 {
	if m.EncoderBytes > 0 {
		return m.EncoderBytes
	}
	return 2 * encoderParams(m.Encoder, true)
}

// encoderLayers is how many decoder layers the engine runs (up to the deepest stacked
// hidden state).
func encoderLayers(c qwen3.Config) int {
	return min(slices.Max(qwen3.DefaultLayers), c.NumHiddenLayers)
}

// encoderTouchedBytes is the part of the text encoder's weights a prompt reads: the layers
// that run (the rest, and the embedding rows of unused tokens, are never paged in).
func (m Model) encoderTouchedBytes() int64 {
	c := m.Encoder
	total := encoderParams(c, true)
	if total == 0 {
		return 0
	}
	used := int64(encoderLayers(c)) * encoderLayerParams(c)
	return int64(float64(m.encoderFileBytes()) * float64(used) / float64(total))
}

// transformerParams counts the FLUX.2 transformer's weights.
func transformerParams(c flux2.Config) int64 {
	d, mlp, hd := int64(c.Hidden()), int64(c.MLPHidden()), int64(c.AttentionHeadDim)
	double := 2*(4*d*d+3*d*mlp) + 4*hd
	single := (3*d+2*mlp)*d + d*(d+mlp) + 2*hd
	other := d*int64(c.InChannels) + d*int64(c.JointAttentionDim) + d*int64(c.TimestepGuidanceChannels) +
		d*d + 17*d*d + int64(c.OutChannels)*d
	return int64(c.NumLayers)*double + int64(c.NumSingleLayers)*single + other
}

// encoderLayerParams counts one Qwen3 decoder layer's weights.
func encoderLayerParams(c qwen3.Config) int64 {
	h, q, kv, in := int64(c.HiddenSize), int64(c.QDim()), int64(c.KVDim()), int64(c.IntermediateSize)
	return h*q + 2*h*kv + q*h + 3*h*in + 2*h + 2*int64(c.HeadDim)
}

// encoderParams counts the Qwen3 weights (with an lm_head unless tied).
func encoderParams(c qwen3.Config, tied bool) int64 {
	emb := int64(c.VocabSize) * int64(c.HiddenSize)
	n := emb + int64(c.NumHiddenLayers)*encoderLayerParams(c) + int64(c.HiddenSize)
	if !tied {
		n += emb
	}
	return n
}

// validate rejects a Model whose configs cannot describe a network (e.g. a zero Model).
func (m Model) validate() error {
	t, q := m.Transformer, m.Encoder
	if t.Hidden() <= 0 || t.MLPHidden() <= 0 || t.Blocks() <= 0 || t.InChannels <= 0 || t.JointAttentionDim <= 0 {
		return fmt.Errorf("model %q: transformer config incomplete", m.Name)
	}
	if q.HiddenSize <= 0 || q.QDim() <= 0 || q.KVDim() <= 0 || q.IntermediateSize <= 0 || q.NumHiddenLayers <= 0 {
		return fmt.Errorf("model %q: text encoder config incomplete", m.Name)
	}
	if err := m.VAE.Validate(); err != nil {
		return fmt.Errorf("model %q: VAE config: %w", m.Name, err)
	}
	return nil
}
