package engine

import (
	"context"
	"fmt"

	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/gpu"
	"kleinbild/internal/sysmem"
)

// textInput is the prompt's embeddings on the backend [n, JointAttentionDim]: txt, and neg
// (the negative prompt's, by default the empty prompt's) when classifier-free guidance runs.
type textInput struct {
	txt, neg gpu.Tensor
	n        int
	maxAbs   float64 // the prompt embeddings' largest magnitude (nonFiniteCause)
}

// encodeText is the text stage: the prompt (and with CFG the negative prompt) through the
// tokenizer and the Qwen3 encoder, or from the cache or the request's embeddings, uploaded.
// It releases the encoder afterwards (endEncoding) and loads the transformer and VAE if they
// made way for it.
func (m *Model) encodeText(ctx context.Context, r *run, p Plan, ts *gpu.Held) (textInput, error) {
	r.report(Progress{Phase: PhaseEncoding})
	embeds := p.Request.PromptEmbeds
	if err := CheckFinite("prompt embeddings", embeds); err != nil {
		return textInput{}, err
	}
	var err error
	if embeds == nil {
		embeds, err = m.encodePrompt(ctx, p.Request.Prompt, func(done, total int) {
			r.report(Progress{Phase: PhaseEncoding, Block: done, Blocks: total})
		})
		if err != nil {
			return textInput{}, err
		}
	}
	var negEmbeds []float32
	if p.CFG {
		if negEmbeds, err = m.encodePrompt(ctx, p.Request.NegativePrompt, nil); err != nil {
			return textInput{}, err
		}
	}
	if err := m.endEncoding(); err != nil {
		return textInput{}, err
	}
	txtDim := m.flux.Config().JointAttentionDim
	// The shape, not the count: [TextTokens, txtDim] exactly (a klein-4B embedding of
	// 512·7680 values is 320·12288, a count klein-9B's width divides).
	txtLen := TextTokens
	if len(embeds) != txtLen*txtDim {
		return textInput{}, fmt.Errorf("prompt embeddings have %d values, want [%d, %d] (%d values): the transformer's text width is %d (embeddings of another model?)",
			len(embeds), txtLen, txtDim, txtLen*txtDim, txtDim)
	}
	if p.CFG && len(negEmbeds) != len(embeds) {
		return textInput{}, fmt.Errorf("negative prompt embeddings have %d values, want %d like the prompt's", len(negEmbeds), len(embeds))
	}
	if err := r.dump("prompt_embeds", []int{1, txtLen, txtDim}, embeds); err != nil {
		return textInput{}, err
	}
	if p.CFG {
		if err := r.dump("negative_prompt_embeds", []int{1, txtLen, txtDim}, negEmbeds); err != nil {
			return textInput{}, err
		}
	}
	in := textInput{n: txtLen, maxAbs: largestAbs(embeds)}
	if in.txt, err = upload(ts, "prompt embeddings", embeds, txtLen, txtDim); err != nil {
		return textInput{}, err
	}
	if p.CFG {
		if in.neg, err = upload(ts, "negative prompt embeddings", negEmbeds, txtLen, txtDim); err != nil {
			return textInput{}, err
		}
	}
	r.endPhase(PhaseEncoding)
	return in, nil
}

// encodePrompt returns a prompt's embedding from the cache, else through the tokenizer and
// the text encoder (cached afterwards), for which a device backend first frees the
// transformer and VAE (unloadDenoiser; encodeText loads them back).
func (m *Model) encodePrompt(ctx context.Context, prompt string, progress func(done, total int)) ([]float32, error) {
	key := prompt + m.textKey // text-encoder adapters change the embedding
	if e, ok := m.embeds.get(key); ok {
		return e, nil
	}
	tok, err := m.tokenizer()
	if err != nil {
		return nil, err
	}
	ids, mask := tok.EncodeChat(prompt, tokenizer.MaxLength)
	m.unloadDenoiser()
	enc, err := m.encoder()
	if err != nil {
		return nil, err
	}
	emb, err := enc.Encode(ctx, ids, mask, qwen3.DefaultLayers, progress)
	if err != nil {
		return nil, fmt.Errorf("encode prompt: %w", err)
	}
	if j := firstNonFinite(emb); j >= 0 {
		return nil, fmt.Errorf("encode prompt: the text encoder produced non-finite embeddings (%s) — its weights may be corrupt; %s", nonFiniteName(float64(emb[j])), corruptHint)
	}
	m.embeds.put(key, emb)
	return emb, nil
}

// endEncoding releases the text encoder as Options ask and then loads the transformer and VAE
// if the encoder made way for them (unloadDenoiser). The encoder's pages are not needed while
// denoising: they are dropped from this process (they stay in the page cache, so a new prompt
// maps them back cheaply) unless KeepEncoder, and the encoder is unmapped entirely when RAM is
// short. On a device backend its tensors are freed before the transformer loads, unless the
// device holds every weight at once (residentOnDevice).
func (m *Model) endEncoding() error {
	if m.enc != nil && (!m.opts.KeepEncoder || m.b.Info().Kind != gpu.KindCPU) && !residentOnDevice(m.b.Info(), m.info.WeightBytes) {
		m.enc.Release()
		if !m.opts.KeepEncoder && memoryShort(m.info) {
			m.releaseEncoder()
		}
	}
	return m.loadDenoiser()
}

// memoryShort reports whether available RAM is too small to keep the text encoder mapped
// next to the transformer during denoising (the pages would be evicted anyway; releasing
// them first avoids thrashing).
func memoryShort(info ModelInfo) bool {
	avail, ok := sysmem.AvailableRAM()
	if !ok {
		return false
	}
	return avail < uint64(info.WeightBytes)+2<<30
}
