package engine

import (
	"fmt"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// Component names one part of a model as stored.
type Component string

// The components of a FLUX.2-klein model whose weights a Source holds.
const (
	TextEncoder Component = "text_encoder"
	Transformer Component = "transformer"
	VAE         Component = "vae"
)

// WeightComponents are the components with weights, in the order the pipeline uses them.
var WeightComponents = []Component{TextEncoder, Transformer, VAE}

// Source is a model as stored: where each component's weights and configs are, and what the
// model is (ModelInfo: variant, missing parts, sizes). Open, Inspect's callers, ScanWeights,
// download.Validate and the estimate all read a model through it, so a new way of storing a
// model (Black Forest Labs' single files, a ComfyUI folder, GGUF, a LoRA adapter over another
// source) is one new implementation, not a change to its readers. Today's one is the
// Hugging Face diffusers folder (OpenFolder). Configs are read once and kept.
type Source interface {
	// Info describes the model without loading weights.
	Info() ModelInfo
	// Where names component c's storage in messages (a folder, a file).
	Where(c Component) string
	// TransformerConfig, EncoderConfig and VAEConfig return the components' configs.
	TransformerConfig() (flux2.Config, error)
	EncoderConfig() (qwen3.Config, error)
	VAEConfig() (vae.Config, error)
	// Tensors opens component c's weights; the caller closes them (or hands them to a
	// model's LoadFrom, which then owns them).
	Tensors(c Component) (weights.Source, error)
	// WeightBytes is the memory component c's weights take once loaded: the size of its
	// weight files where they are mapped as stored, more where they are converted (a GGUF's
	// quantized tensors become float32); 0 when unknown.
	WeightBytes(c Component) int64
	// Tokenizer loads the text encoder's tokenizer.
	Tokenizer() (*tokenizer.Tokenizer, error)
}

// loadTransformer, loadEncoder and loadVAE load one component of src onto b, with the
// messages of flux2.Load, qwen3.Load and vae.Load.
func loadTransformer(src Source, b gpu.Backend) (*flux2.Model, error) {
	cfg, err := src.TransformerConfig()
	if err != nil {
		return nil, err
	}
	ts, err := src.Tensors(Transformer)
	if err != nil {
		return nil, fmt.Errorf("flux2: %w", err)
	}
	m, err := flux2.LoadFrom(src.Where(Transformer), cfg, ts, b)
	if err != nil {
		ts.Close()
		return nil, err
	}
	return m, nil
}

func loadEncoder(src Source, b gpu.Backend) (*qwen3.Encoder, error) {
	cfg, err := src.EncoderConfig()
	if err != nil {
		return nil, err
	}
	ts, err := src.Tensors(TextEncoder)
	if err != nil {
		return nil, fmt.Errorf("qwen3: weights: %w", err)
	}
	layers := 0
	if p, ok := src.(interface{ EncoderLayers() int }); ok {
		layers = p.EncoderLayers() // a source that reads only the layers the pipeline runs
	}
	e, err := qwen3.LoadLayers(src.Where(TextEncoder), cfg, ts, b, layers)
	if err != nil {
		ts.Close()
		return nil, err
	}
	return e, nil
}

func loadVAE(src Source, b gpu.Backend) (*vae.VAE, error) {
	cfg, err := src.VAEConfig()
	if err != nil {
		return nil, err
	}
	ts, err := src.Tensors(VAE)
	if err != nil {
		return nil, fmt.Errorf("load VAE weights: %w", err)
	}
	v, err := vae.LoadFrom(src.Where(VAE), cfg, ts, b)
	if err != nil {
		ts.Close()
		return nil, err
	}
	return v, nil
}

// LoadEncoder loads the text encoder of src onto b (the caller closes it): for callers that
// encode prompts without a Model.
func LoadEncoder(src Source, b gpu.Backend) (*qwen3.Encoder, error) { return loadEncoder(src, b) }

// CheckLoad loads component c of src (TextEncoder, Transformer or VAE) onto b, checking
// every tensor as Open does, and frees it again: the deep check of a model.
func CheckLoad(src Source, c Component, b gpu.Backend) error {
	var closer interface{ Close() error }
	var err error
	switch c {
	case Transformer:
		closer, err = loadTransformer(src, b)
	case TextEncoder:
		closer, err = loadEncoder(src, b)
	case VAE:
		closer, err = loadVAE(src, b)
	default:
		return fmt.Errorf("engine: component %q has no weights", c)
	}
	if err != nil {
		return err
	}
	return closer.Close()
}
