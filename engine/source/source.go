// Package source is what a FLUX.2-klein model is on disk: a Source (a diffusers folder,
// single files, a ComfyUI models folder, or files over a folder), what kind of path names a
// model (Kind), the files a folder must have (RequiredFiles) and what the model is
// (ModelInfo, Inspect). It loads no weights; package engine does.
package source

import (
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
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
