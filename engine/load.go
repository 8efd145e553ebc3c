package engine

import (
	"fmt"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
)

// loadTransformer, loadEncoder and loadVAE load one component of src onto b, with the
// messages of flux2.Load, qwen3.Load and vae.Load.
func loadTransformer(src Source, b gpu.Backend) (*flux2.Model, error) {
	cfg, err := src.TransformerConfig()
	if err != nil {
		return nil, err
	}
	if err := checkTextWidth(src, cfg); err != nil {
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

// checkTextWidth compares the transformer's text input with what the text encoder of src (if
// it has one) gives: qwen3.DefaultLayers hidden states stacked per token. A mismatch (a
// transformer file whose txt_in is 1 wide) failed only at generation, blaming the prompt
// embeddings (issue 37 item 9).
func checkTextWidth(src Source, cfg flux2.Config) error {
	ec, err := src.EncoderConfig()
	if err != nil {
		return nil // no text encoder: nothing to compare (its own load says what is wrong)
	}
	if want := len(qwen3.DefaultLayers) * ec.HiddenSize; cfg.JointAttentionDim != want {
		return fmt.Errorf("flux2: %s: the transformer's text input (context_embedder, txt_in in BFL naming) is %d wide, but the text encoder gives %d (%d hidden states of %d): the two do not belong to one model",
			src.Where(Transformer), cfg.JointAttentionDim, want, len(qwen3.DefaultLayers), ec.HiddenSize)
	}
	return nil
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
