package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/engine/vae"
	"kleinbild/gpu"
)

// Options tune how a Model uses memory.
type Options struct {
	// KeepEncoder keeps the text encoder mapped between generations. When false the encoder
	// is released after encoding whenever available RAM is short (see Model.Generate).
	KeepEncoder bool
	// CacheDir, when set, persists prompt embeddings there (bounded by CacheBytes).
	CacheDir   string
	CacheBytes int64
}

// Model is an opened model (see Source). Weights are memory-mapped lazily; the text encoder is
// loaded on demand and may be released between generations. A Model runs one generation
// at a time (Generate serialises callers).
type Model struct {
	info ModelInfo
	src  Source
	b    gpu.Backend
	opts Options

	mu     sync.Mutex // serialises Generate and guards the lazily loaded parts
	tok    *tokenizer.Tokenizer
	enc    *qwen3.Encoder
	flux   *flux2.Model
	vae    *vae.VAE
	embeds *embedCache
	watch  *weightWatch // the weight files as mapped: a run stops if they change

	adapters lora.Stack // applied by the transformer and the text encoder (adapters.go)
	textKey  string     // the text-encoder adapters' part of the embedding cache key
}

// Open validates a model folder (OpenFolder) and opens it as OpenSource does.
func Open(dir string, b gpu.Backend, opts Options) (*Model, error) {
	if b == nil {
		return nil, errors.New("engine: nil gpu.Backend")
	}
	src, err := OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	return OpenSource(src, b, opts)
}

// OpenSource loads the transformer and VAE of src onto the backend b. The tokenizer and
// text encoder are loaded on first use; on a device backend the transformer and VAE make way
// for the encoder while it runs (see unloadDenoiser). The caller keeps b open until Close.
func OpenSource(src Source, b gpu.Backend, opts Options) (*Model, error) {
	if b == nil {
		return nil, errors.New("engine: nil gpu.Backend")
	}
	info := src.Info()
	if err := info.MissingError(); err != nil {
		return nil, err
	}
	m := &Model{info: info, src: src, b: b, opts: opts, watch: newWeightWatch(info)}
	if err := m.loadDenoiser(); err != nil {
		return nil, err
	}
	m.embeds = newEmbedCache(opts.CacheDir, opts.CacheBytes, info, b.Name(), m.flux.Config().JointAttentionDim)
	return m, nil
}

// loadDenoiser loads the transformer and the VAE onto the backend where they are not loaded
// (at open, and again after the text encoder ran on a device: see unloadDenoiser).
func (m *Model) loadDenoiser() error {
	var err error
	if m.flux == nil {
		if m.flux, err = loadTransformer(m.src, m.b); err != nil {
			return fmt.Errorf("load transformer: %w", err)
		}
		if c := m.flux.Config(); c.InChannels != latentChannels || c.OutChannels != latentChannels {
			m.flux.Close()
			m.flux = nil
			return fmt.Errorf("load transformer: %d input and %d output channels, want %d", c.InChannels, c.OutChannels, latentChannels)
		}
		if len(m.adapters) > 0 { // a reload after encoding keeps the stack (adapters.go)
			if err := m.flux.SetAdapters(m.adapters); err != nil {
				m.closeDenoiser()
				return fmt.Errorf("load transformer: adapters: %w", err)
			}
		}
	}
	if m.vae == nil {
		if m.vae, err = loadVAE(m.src, m.b); err != nil {
			m.closeDenoiser()
			return fmt.Errorf("load VAE: %w", err)
		}
		if c := m.vae.Config(); c.PatchedChannels() != latentChannels {
			m.closeDenoiser()
			return fmt.Errorf("load VAE: %d latent channels, want %d", c.LatentChannels, latentChannels/4)
		}
	}
	return nil
}

// unloadDenoiser frees the transformer and the VAE before the text encoder runs on a device
// backend (one that copies weights into its own memory), so that the device holds the
// encoder or the transformer and VAE, not both, unless its memory holds them all
// (residentOnDevice): its peak is the larger of the two plus activations. encodeText loads
// them back once the encoder is released. On the CPU backends the weights are views of the
// mapped files and stay.
func (m *Model) unloadDenoiser() {
	if m.b.Info().Kind != gpu.KindCPU && !residentOnDevice(m.b.Info(), m.info.WeightBytes) {
		_ = m.closeDenoiser() // a failure to unmap leaves nothing to undo: the tensors are freed
	}
}

// closeDenoiser closes the transformer and the VAE (those loaded) and forgets them.
func (m *Model) closeDenoiser() error {
	var errs []error
	if m.flux != nil {
		errs = append(errs, m.flux.Close())
		m.flux = nil
	}
	if m.vae != nil {
		errs = append(errs, m.vae.Close())
		m.vae = nil
	}
	return errors.Join(errs...)
}

// Info describes the opened model.
func (m *Model) Info() ModelInfo { return m.info }

// Backend is the compute backend the model runs on.
func (m *Model) Backend() gpu.Backend { return m.b }

// tokenizer loads the tokenizer once.
func (m *Model) tokenizer() (*tokenizer.Tokenizer, error) {
	if m.tok == nil {
		t, err := m.src.Tokenizer()
		if err != nil {
			return nil, fmt.Errorf("load tokenizer: %w", err)
		}
		m.tok = t
	}
	return m.tok, nil
}

// encoder maps the text encoder on demand.
func (m *Model) encoder() (*qwen3.Encoder, error) {
	if m.enc == nil {
		e, err := loadEncoder(m.src, m.b)
		if err != nil {
			return nil, fmt.Errorf("load text encoder: %w", err)
		}
		if err := e.SetAdapters(m.adapters); err != nil {
			e.Close()
			return nil, fmt.Errorf("text encoder adapters: %w", err)
		}
		m.enc = e
	}
	return m.enc, nil
}

// ReleaseEncoder unmaps the text encoder; it is reloaded on the next uncached prompt.
func (m *Model) ReleaseEncoder() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.releaseEncoder()
}

func (m *Model) releaseEncoder() {
	if m.enc != nil {
		m.enc.Release()
		m.enc.Close()
		m.enc = nil
	}
}

// Tokens returns the chat-templated, padded token ids and attention mask of a prompt.
func (m *Model) Tokens(prompt string) (ids, mask []int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tok, err := m.tokenizer()
	if err != nil {
		return nil, nil, err
	}
	ids, mask = tok.EncodeChat(prompt, tokenizer.MaxLength)
	return ids, mask, nil
}

// EncodePrompt returns the prompt embedding [TextTokens, 3·hidden] the transformer reads.
func (m *Model) EncodePrompt(ctx context.Context, prompt string, progress func(done, total int)) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.encodePrompt(ctx, prompt, progress)
}

// Close frees the model's tensors and releases every mapping; the backend stays open.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.releaseEncoder()
	return m.closeDenoiser()
}
