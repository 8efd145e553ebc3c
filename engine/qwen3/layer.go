package qwen3

import (
	"math"

	"kleinbild/engine/bind"
	"kleinbild/engine/lora"
	"kleinbild/gpu"
)

// decoderLayer is one Qwen3DecoderLayer as read from the checkpoint (host views and owned
// vector copies): pre-norm self-attention (per-head RMSNorm on q and k before rotate-half
// RoPE, grouped-query attention) and a pre-norm SwiGLU MLP, each added to the residual
// stream.
type decoderLayer struct {
	inputNorm, postNorm []float32 // [hidden]
	qNorm, kNorm        []float32 // [head_dim], shared by all heads
	q, k, v, o          bind.Matrix
	qBias, kBias        []float32 // nil unless attention_bias
	vBias, oBias        []float32
	gate, up, down      bind.Matrix
}

// layerTensors are a decoderLayer's weights on the backend. Absent biases are the zero
// Tensor.
type layerTensors struct {
	prefix              string // "model.layers.N." (adapter module names)
	inputNorm, postNorm gpu.Tensor
	qNorm, kNorm        gpu.Tensor
	q, k, v, o          gpu.Tensor
	qBias, kBias        gpu.Tensor
	vBias, oBias        gpu.Tensor
	gate, up, down      gpu.Tensor
}

// upload makes l's weights read-only tensors of h.B held by h (views of the mapping on the
// CPU); absent biases, and every weight once h holds an error, give the zero Tensor.
func (l *decoderLayer) upload(h *gpu.Held) layerTensors {
	return layerTensors{
		inputNorm: uploadVector(h, l.inputNorm), postNorm: uploadVector(h, l.postNorm),
		qNorm: uploadVector(h, l.qNorm), kNorm: uploadVector(h, l.kNorm),
		q: uploadMatrix(h, l.q), k: uploadMatrix(h, l.k), v: uploadMatrix(h, l.v), o: uploadMatrix(h, l.o),
		qBias: uploadVector(h, l.qBias), kBias: uploadVector(h, l.kBias),
		vBias: uploadVector(h, l.vBias), oBias: uploadVector(h, l.oBias),
		gate: uploadMatrix(h, l.gate), up: uploadMatrix(h, l.up), down: uploadMatrix(h, l.down),
	}
}

func uploadMatrix(h *gpu.Held, m bind.Matrix) gpu.Tensor {
	if h.Err != nil {
		return gpu.Tensor{}
	}
	return h.Keep(m.Upload(h.B))
}

// uploadVector makes v (an owned copy; nil: none) a read-only tensor held by h.
func uploadVector(h *gpu.Held, v []float32) gpu.Tensor {
	if h.Err != nil || v == nil {
		return gpu.Tensor{}
	}
	return h.Keep(h.B.WeightF32(v, len(v)))
}

// activations are the backend tensors of one forward pass over seq tokens, allocated once
// per call and reused by every layer.
type activations struct {
	seq   int
	x     gpu.Tensor // residual stream [seq, hidden]
	xn    gpu.Tensor // normed input of a sub-block [seq, hidden]
	q     gpu.Tensor // [seq, heads·head_dim]
	k, v  gpu.Tensor // [seq, kv_heads·head_dim]
	attn  gpu.Tensor // attention output [seq, heads·head_dim]
	gate  gpu.Tensor // [seq, intermediate]
	up    gpu.Tensor // [seq, intermediate]
	delta gpu.Tensor // sub-block output before the residual add [seq, hidden]
	cos   gpu.Tensor // RoPE tables [seq, head_dim]
	sin   gpu.Tensor
	ad    *lora.Runtime // text-encoder adapters (nil: none)
	adTmp gpu.Tensor    // their scratch
	all   []gpu.Tensor
}

// newActivations allocates the buffers of a pass over seq tokens and uploads the RoPE
// tables. On error nothing stays allocated.
func newActivations(b gpu.Backend, cfg Config, seq int) (*activations, error) {
	h, q, kv, inter, hd := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize, cfg.HeadDim
	a := &activations{seq: seq}
	alloc := []struct {
		dst   *gpu.Tensor
		width int
	}{
		{&a.x, h}, {&a.xn, h}, {&a.q, q}, {&a.k, kv}, {&a.v, kv}, {&a.attn, q},
		{&a.gate, inter}, {&a.up, inter}, {&a.delta, h},
	}
	for _, t := range alloc {
		x, err := b.Alloc(gpu.F32, seq, t.width)
		if err != nil {
			a.free(b)
			return nil, err
		}
		*t.dst = x
		a.all = append(a.all, x)
	}
	cos, sin := ropeTables(seq, hd, cfg.RopeTheta)
	for _, t := range []struct {
		dst  *gpu.Tensor
		data []float32
	}{{&a.cos, cos}, {&a.sin, sin}} {
		x, err := gpu.FromHost(b, t.data, seq, hd)
		if err != nil {
			a.free(b)
			return nil, err
		}
		*t.dst = x
		a.all = append(a.all, x)
	}
	return a, nil
}

func (a *activations) free(b gpu.Backend) {
	for _, t := range a.all {
		b.Free(t)
	}
	a.all = nil
}

// forward enqueues the layer, in place on a.x. realTokens is the number of non-padding
// tokens (padding is on the right): every query, padded or not, attends causally to real
// keys only.
func (l *layerTensors) forward(b gpu.Backend, cfg Config, a *activations, realTokens int) {
	seq, h, hd := a.seq, cfg.HiddenSize, cfg.HeadDim
	nh, nkv := cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	eps := float32(cfg.RMSNormEps)

	// Self-attention.
	b.RMSNorm(a.xn, a.x, l.inputNorm, seq, h, eps)
	l.linear(b, a, a.q, a.xn, l.q, l.qBias, "self_attn.q_proj")
	l.linear(b, a, a.k, a.xn, l.k, l.kBias, "self_attn.k_proj")
	l.linear(b, a, a.v, a.xn, l.v, l.vBias, "self_attn.v_proj")
	b.HeadRMSNorm(a.q, l.qNorm, seq, nh*hd, nh, hd, eps) // one norm per (token, head)
	b.HeadRMSNorm(a.k, l.kNorm, seq, nkv*hd, nkv, hd, eps)
	b.RoPE(a.q, a.cos, a.sin, seq, nh, hd, nh*hd, false)
	b.RoPE(a.k, a.cos, a.sin, seq, nkv, hd, nkv*hd, false)
	b.Attention(a.attn, a.q, a.k, a.v, gpu.AttnParams{
		SeqQ: seq, SeqK: seq,
		Heads: nh, KVHeads: nkv, HeadDim: hd,
		Scale:    float32(1 / math.Sqrt(float64(hd))),
		Causal:   true,
		KeyValid: realTokens,
	})
	l.linear(b, a, a.delta, a.attn, l.o, l.oBias, "self_attn.o_proj")
	b.Add(a.x, a.x, a.delta)

	// MLP: down(silu(gate(x)) · up(x)).
	b.RMSNorm(a.xn, a.x, l.postNorm, seq, h, eps)
	l.linear(b, a, a.gate, a.xn, l.gate, gpu.Tensor{}, "mlp.gate_proj")
	l.linear(b, a, a.up, a.xn, l.up, gpu.Tensor{}, "mlp.up_proj")
	b.SiLU(a.gate, a.gate)
	b.Mul(a.gate, a.gate, a.up)
	l.linear(b, a, a.delta, a.gate, l.down, gpu.Tensor{}, "mlp.down_proj")
	b.Add(a.x, a.x, a.delta)
}

// linear computes y = x·wᵀ + bias over the pass's tokens and adds the adapters' terms of
// this layer's module name.
func (l *layerTensors) linear(b gpu.Backend, a *activations, y, x, w, bias gpu.Tensor, name string) {
	b.Linear(y, x, w, bias, a.seq)
	if a.ad.Active() {
		a.ad.AddUsing(a.adTmp, y, x, a.seq, l.prefix+name)
	}
}
