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
	"slices"
	"sync"
	"sync/atomic"

	"kleinbild/engine/bind"
	"kleinbild/engine/lora"
	"kleinbild/gpu"
	"kleinbild/gpu/quant"
	"kleinbild/weights"
)

// DefaultLayers are the hidden-state indices FLUX.2-klein stacks into its prompt embeddings.
// Treat it as read-only.
var DefaultLayers = []int{9, 18, 27}

// Encoder is a loaded Qwen3 model. Its weights are read-only views into the checkpoint's
// mapping, made into backend tensors on first use (views again on the CPU backends), and
// each call allocates its own activations, so concurrent calls are as safe as the Backend
// they share.
type Encoder struct {
	cfg    Config
	b      gpu.Backend
	ckpt   weights.Source // nil for encoders built in memory (benchmarks)
	where  string         // the weights' file or folder: a pass reads them under weights.Guard
	embed  bind.Matrix    // [vocab, hidden], gathered on the host
	norm   []float32      // final RMSNorm [hidden]
	layers []decoderLayer
	// readLayers is how many decoder layers were read (0: all; see LoadLayers).
	readLayers int

	ad     *lora.Runtime // text-encoder adapters applied at run time (nil: none)
	mu     sync.RWMutex  // held for reading while a pass runs, for writing to (un)bind
	bound  bound         // the backend tensors made so far
	closed atomic.Bool
}

// bound holds the backend tensors of the weights: layers 0..len(layers)-1 and, once a pass
// needed it, the final norm.
type bound struct {
	held   gpu.Held
	layers []layerTensors
	norm   gpu.Tensor
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
	var hs []float32
	err = e.guardedForward(ctx, ids, realTokens, upto, progress, func(index int, x gpu.Tensor) error {
		if !slices.Contains(layers, index) {
			return nil
		}
		if hs == nil {
			hs = make([]float32, x.Len())
		}
		if err := e.b.Read(hs, x); err != nil {
			return fmt.Errorf("qwen3: encode: hidden state %d: %w", index, err)
		}
		// Stack the state per token (host work: the output layout).
		for k, l := range layers {
			if l != index {
				continue
			}
			for t := range len(ids) {
				copy(out[t*width+k*h:t*width+(k+1)*h], hs[t*h:(t+1)*h])
			}
		}
		return nil
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
	err = e.guardedForward(ctx, ids, realTokens, upto, nil, func(index int, x gpu.Tensor) error {
		hs, err := gpu.ToHost(e.b, x)
		if err != nil {
			return fmt.Errorf("qwen3: hidden state %d: %w", index, err)
		}
		states = append(states, hs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return states, nil
}

// guardedForward is forward under weights.Guard: the weights are views of the mapped files
// (on the CPU backends, also while the layers run), so a file that shrinks during a pass is
// an error wrapping weights.ErrFileChanged and naming it, not a SIGBUS.
func (e *Encoder) guardedForward(ctx context.Context, ids []int, realTokens, upto int, progress func(done, total int), visit func(index int, hs gpu.Tensor) error) error {
	return weights.Guard(e.where, func() error { return e.forward(ctx, ids, realTokens, upto, progress, visit) })
}

// Release frees the encoder's backend tensors and asks the kernel to drop the checkpoint's
// mapped pages; both come back (the pages read again from disk, the tensors made again) if
// the encoder runs again. Call it once the prompts are encoded. It waits for running calls.
func (e *Encoder) Release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unbind()
	if e.ckpt != nil && !e.closed.Load() {
		e.ckpt.Release()
	}
}

// Close frees the backend tensors and unmaps the checkpoint. The encoder cannot be used
// afterwards. It waits for running calls.
func (e *Encoder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	e.unbind()
	e.ad.Close()
	e.ad = nil
	if e.ckpt == nil {
		return nil
	}
	return e.ckpt.Close()
}

// unbind frees the backend tensors; e.mu is held for writing.
func (e *Encoder) unbind() {
	e.bound.held.Free()
	e.bound = bound{}
}

// acquire makes sure the backend tensors of layers 0..upto-1 (and of the final norm when
// upto is the number of layers) exist and holds e.mu for reading; the caller calls the
// returned release when its pass is done. Binding stops between layers once ctx is done
// (what is bound stays bound for the next pass).
func (e *Encoder) acquire(ctx context.Context, upto int) (release func(), err error) {
	needNorm := upto == e.cfg.NumHiddenLayers
	ready := func() bool {
		return len(e.bound.layers) >= upto && (!needNorm || !e.bound.norm.IsZero())
	}
	for {
		e.mu.RLock()
		if e.closed.Load() {
			e.mu.RUnlock()
			return nil, errors.New("qwen3: encoder is closed")
		}
		if ready() {
			return e.mu.RUnlock, nil
		}
		e.mu.RUnlock()
		if err := e.bind(ctx, upto, needNorm); err != nil {
			return nil, err
		}
	}
}

// bind makes the missing backend tensors of layers 0..upto-1 and, with norm, of the final
// norm. It returns ctx's error, keeping the layers bound so far, when ctx is done
// between two layers.
func (e *Encoder) bind(ctx context.Context, upto int, norm bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return errors.New("qwen3: encoder is closed")
	}
	h := &e.bound.held
	h.B = e.b
	for l := len(e.bound.layers); l < upto && h.Err == nil; l++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("qwen3: encode cancelled while binding layer %d of %d: %w", l, upto, err)
		}
		lt := e.layers[l].upload(h)
		lt.prefix = fmt.Sprintf("model.layers.%d.", l)
		if h.Err == nil {
			e.bound.layers = append(e.bound.layers, lt)
		}
	}
	if norm && e.bound.norm.IsZero() && h.Err == nil {
		e.bound.norm = uploadVector(h, e.norm)
	}
	if err := h.Err; err != nil {
		e.unbind()
		return fmt.Errorf("qwen3: weights to %s: %w", e.b.Name(), err)
	}
	return nil
}

// forward runs decoder layers 0..upto-1 on checked inputs and calls visit with every hidden
// state 0..upto in order (a tensor only valid during the call: visit reads it back if it
// needs it). The first realTokens tokens are real, the rest right padding.
func (e *Encoder) forward(ctx context.Context, ids []int, realTokens, upto int, progress func(done, total int), visit func(index int, hs gpu.Tensor) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("qwen3: encode cancelled: %w", err)
	}
	if upto > len(e.layers) {
		return fmt.Errorf("qwen3: hidden state %d needs decoder layer %d, which was not read (%d of %d layers loaded)", upto, upto-1, len(e.layers), e.cfg.NumHiddenLayers)
	}
	release, err := e.acquire(ctx, upto)
	if err != nil {
		return err
	}
	defer release()
	defer gpu.Interrupt(ctx, e.b)() // a cancel stops a long op part-way (CPU backends)
	b := e.b
	seq, h := len(ids), e.cfg.HiddenSize
	a, err := newActivations(b, e.cfg, seq)
	if err != nil {
		return fmt.Errorf("qwen3: encode: activations for %d tokens: %w", seq, err)
	}
	defer a.free(b)
	if e.ad.Active() {
		t, err := b.Alloc(gpu.F32, seq*e.ad.PerRow())
		if err != nil {
			return fmt.Errorf("qwen3: encode: adapter scratch for %d tokens: %w", seq, err)
		}
		a.all = append(a.all, t)
		a.ad, a.adTmp = e.ad, t
	}

	// The embedding rows are gathered on the host: the table never goes to the backend.
	emb := make([]float32, seq*h)
	for t, id := range ids {
		e.embedRow(emb[t*h:(t+1)*h], id)
	}
	b.Upload(a.x, emb)
	if err := visit(0, a.x); err != nil {
		return err
	}
	n := e.cfg.NumHiddenLayers
	for l := range upto {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("qwen3: encode cancelled before layer %d of %d: %w", l, upto, err)
		}
		e.bound.layers[l].forward(b, e.cfg, a, realTokens)
		if err := b.Flush(); err != nil {
			return fmt.Errorf("qwen3: encode: layer %d: %w", l, err)
		}
		if l+1 < n {
			if err := visit(l+1, a.x); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(l+1, upto)
		}
	}
	if upto == n {
		// transformers replaces the last hidden state by the final norm of it.
		b.RMSNorm(a.xn, a.x, e.bound.norm, seq, h, float32(e.cfg.RMSNormEps))
		if err := visit(n, a.xn); err != nil {
			return err
		}
	}
	return b.Sync()
}

// embedRow writes the float32 embedding of token id into dst.
func (e *Encoder) embedRow(dst []float32, id int) {
	h := e.cfg.HiddenSize
	if e.embed.BF16 != nil {
		weights.BF16ToF32(dst, e.embed.BF16[id*h:(id+1)*h])
		return
	}
	if e.embed.Packed != nil { // whole blocks per row (rowsDecodable): decode just this row
		q := e.embed.Packed.Quantized()
		dt, _ := gpu.QuantByName(q.Type)
		be, bb := dt.Block()
		row := h / be * bb
		quant.Decoder(dt)(dst[:h], q.Data[id*row:(id+1)*row])
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

// SetAdapters makes the text-encoder terms of s the adapters every pass applies at run time
// (an empty stack: none); transformer terms are ignored. As flux2.Model.SetAdapters: the
// base weights stay, factors are uploaded once per adapter, strengths only change scales.
// It waits for running passes.
func (e *Encoder) SetAdapters(s lora.Stack) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return errors.New("qwen3: encoder is closed")
	}
	if len(s) == 0 && e.ad == nil {
		return nil
	}
	if e.ad == nil {
		e.ad = lora.NewRuntime(e.b, lora.TextEncoder)
	}
	if err := e.ad.Set(s, Layers(e.cfg)); err != nil {
		return fmt.Errorf("qwen3: %w", err)
	}
	return nil
}

// Layers lists the encoder's linear layers under the Qwen3ForCausalLM names adapters use
// (model.layers.N.self_attn.q_proj, …) with their [out, in].
func Layers(cfg Config) lora.Layers { return lora.LayersOf(TensorSpecs(cfg)) }
