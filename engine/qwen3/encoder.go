// Package qwen3 is the Qwen3 text encoder as FLUX.2-klein uses it (diffusers'
// Flux2KleinPipeline._get_qwen3_prompt_embeds over transformers' Qwen3 model): token ids in,
// selected hidden states out, stacked per token.
//
// Hidden state numbering follows transformers' output_hidden_states: hidden_states[0] is the
// token embedding, hidden_states[i] for 1 <= i < num_hidden_layers is the raw output of decoder
// layer i-1, and hidden_states[num_hidden_layers] is the final RMSNorm applied to the last
// layer's output. Only the layers needed for the highest requested index run; the LM head
// never does.
package qwen3

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"kleinbild/gpu"
	"kleinbild/weights"
)

// DefaultLayers are the hidden-state indices FLUX.2-klein stacks into its prompt embeddings.
// Treat it as read-only.
var DefaultLayers = []int{9, 18, 27}

// Encoder is a loaded Qwen3 model. Its weights are read-only views into the checkpoint's
// mapping and each call allocates its own activations, so concurrent calls are as safe as
// the Device they share.
type Encoder struct {
	cfg    Config
	dev    *gpu.Device
	ckpt   *weights.Checkpoint // nil for encoders built in memory (benchmarks)
	embed  gpu.Weight          // [vocab, hidden]
	norm   []float32           // final RMSNorm [hidden]
	layers []decoderLayer
	closed atomic.Bool
}

// Config returns the validated model configuration.
func (e *Encoder) Config() Config { return e.cfg }

// Encode runs the model on one sequence and returns the hidden states with the given indices
// stacked per token: out[t·len(layers)·hidden + k·hidden + d] is hidden_states[layers[k]][t][d]
// (the layout of diffusers' prompt_embeds). ids and mask have one entry per token; mask is 1
// for real tokens and 0 for right padding, which still gets values (it attends to the real
// tokens before it, as transformers' causal+padding mask does). progress, if non-nil, is
// called after each decoder layer with the layers done and the layers to run.
func (e *Encoder) Encode(ctx context.Context, ids, mask []int, layers []int, progress func(done, total int)) ([]float32, error) {
	if len(layers) == 0 {
		return nil, errors.New("qwen3: encode: no hidden-state layers requested")
	}
	upto := 0
	for _, l := range layers {
		if l < 0 || l > e.cfg.NumHiddenLayers {
			return nil, fmt.Errorf("qwen3: encode: hidden-state index %d out of range [0, %d]", l, e.cfg.NumHiddenLayers)
		}
		upto = max(upto, l)
	}
	realTokens, err := e.checkInputs(ids, mask)
	if err != nil {
		return nil, err
	}
	h := e.cfg.HiddenSize
	width := len(layers) * h
	out := make([]float32, len(ids)*width)
	err = e.forward(ctx, ids, realTokens, upto, progress, func(index int, hs []float32) {
		for k, l := range layers {
			if l != index {
				continue
			}
			for t := range len(ids) {
				copy(out[t*width+k*h:t*width+(k+1)*h], hs[t*h:(t+1)*h])
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// HiddenStates returns hidden_states[0..upto], each [len(ids), hidden], for tests and
// debugging.
func (e *Encoder) HiddenStates(ctx context.Context, ids, mask []int, upto int) ([][]float32, error) {
	if upto < 0 || upto > e.cfg.NumHiddenLayers {
		return nil, fmt.Errorf("qwen3: hidden states: index %d out of range [0, %d]", upto, e.cfg.NumHiddenLayers)
	}
	realTokens, err := e.checkInputs(ids, mask)
	if err != nil {
		return nil, err
	}
	states := make([][]float32, 0, upto+1)
	err = e.forward(ctx, ids, realTokens, upto, nil, func(_ int, hs []float32) {
		states = append(states, append([]float32(nil), hs...))
	})
	if err != nil {
		return nil, err
	}
	return states, nil
}

// Release asks the kernel to drop the checkpoint's mapped pages (they are read again from
// disk if the encoder runs again). Call it once the prompts are encoded.
func (e *Encoder) Release() {
	if e.ckpt != nil && !e.closed.Load() {
		e.ckpt.Release()
	}
}

// Close unmaps the checkpoint. The encoder cannot be used afterwards.
func (e *Encoder) Close() error {
	if !e.closed.CompareAndSwap(false, true) || e.ckpt == nil {
		return nil
	}
	return e.ckpt.Close()
}

// forward runs decoder layers 0..upto-1 on checked inputs and calls visit with every hidden
// state 0..upto in order; hs is only valid during the call. The first realTokens tokens are
// real, the rest right padding.
func (e *Encoder) forward(ctx context.Context, ids []int, realTokens, upto int, progress func(done, total int), visit func(index int, hs []float32)) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("qwen3: encode cancelled: %w", err)
	}
	seq, h := len(ids), e.cfg.HiddenSize
	a := newActivations(e.cfg, seq)
	e.dev.Parallel(seq, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			e.embedRow(a.x[t*h:(t+1)*h], ids[t])
		}
	})
	visit(0, a.x)
	n := e.cfg.NumHiddenLayers
	for l := range upto {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("qwen3: encode cancelled before layer %d of %d: %w", l, upto, err)
		}
		e.layers[l].forward(e.dev, e.cfg, a, realTokens)
		if l+1 < n {
			visit(l+1, a.x)
		}
		if progress != nil {
			progress(l+1, upto)
		}
	}
	if upto == n {
		// transformers replaces the last hidden state by the final norm of it.
		e.dev.RMSNorm(a.xn, a.x, seq, h, float32(e.cfg.RMSNormEps), e.norm)
		visit(n, a.xn)
	}
	return nil
}

// embedRow writes the float32 embedding of token id into dst.
func (e *Encoder) embedRow(dst []float32, id int) {
	h := e.cfg.HiddenSize
	if e.embed.BF16 != nil {
		weights.BF16ToF32(dst, e.embed.BF16[id*h:(id+1)*h])
		return
	}
	copy(dst, e.embed.F32[id*h:(id+1)*h])
}

// checkInputs validates ids and mask (and that the encoder is open) and returns the number
// of real tokens.
func (e *Encoder) checkInputs(ids, mask []int) (int, error) {
	if e.closed.Load() {
		return 0, errors.New("qwen3: encoder is closed")
	}
	if len(ids) != len(mask) {
		return 0, fmt.Errorf("qwen3: %d token ids but %d attention-mask entries", len(ids), len(mask))
	}
	if len(ids) == 0 {
		return 0, errors.New("qwen3: empty token sequence")
	}
	if maxPos := e.cfg.MaxPositionEmbeddings; maxPos > 0 && len(ids) > maxPos {
		return 0, fmt.Errorf("qwen3: %d tokens exceed max_position_embeddings %d", len(ids), maxPos)
	}
	for i, id := range ids {
		if id < 0 || id >= e.cfg.VocabSize {
			return 0, fmt.Errorf("qwen3: token id %d at position %d is outside the vocabulary [0, %d)", id, i, e.cfg.VocabSize)
		}
	}
	nReal := 0
	for i, m := range mask {
		switch {
		case m == 1 && nReal == i:
			nReal++
		case m == 1:
			return 0, fmt.Errorf("qwen3: attention mask has a real token at position %d after padding at %d: only right padding is supported", i, nReal)
		case m != 0:
			return 0, fmt.Errorf("qwen3: attention mask value %d at position %d, want 0 or 1", m, i)
		}
	}
	if nReal == 0 {
		return 0, errors.New("qwen3: attention mask has no real tokens")
	}
	return nReal, nil
}
