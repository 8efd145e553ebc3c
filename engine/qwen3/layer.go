package qwen3

import (
	"math"

	"kleinbild/gpu"
)

// decoderLayer is one Qwen3DecoderLayer: pre-norm self-attention (per-head RMSNorm on q and k
// before rotate-half RoPE, grouped-query attention) and a pre-norm SwiGLU MLP, each added to
// the residual stream.
type decoderLayer struct {
	inputNorm, postNorm []float32 // [hidden]
	qNorm, kNorm        []float32 // [head_dim], shared by all heads
	q, k, v, o          gpu.Weight
	qBias, kBias        []float32 // nil unless attention_bias
	vBias, oBias        []float32
	gate, up, down      gpu.Weight
}

// activations are the buffers of one forward pass over seq tokens, allocated once per call
// and reused by every layer.
type activations struct {
	seq   int
	x     []float32 // residual stream [seq, hidden]
	xn    []float32 // normed input of a sub-block [seq, hidden]
	q     []float32 // [seq, heads·head_dim]
	k, v  []float32 // [seq, kv_heads·head_dim]
	attn  []float32 // attention output [seq, heads·head_dim]
	gate  []float32 // [seq, intermediate]
	up    []float32 // [seq, intermediate]
	delta []float32 // sub-block output before the residual add [seq, hidden]
	cos   []float32 // RoPE tables [seq, head_dim]
	sin   []float32
}

func newActivations(cfg Config, seq int) *activations {
	h, q, kv, inter := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize
	a := &activations{
		seq:   seq,
		x:     make([]float32, seq*h),
		xn:    make([]float32, seq*h),
		q:     make([]float32, seq*q),
		k:     make([]float32, seq*kv),
		v:     make([]float32, seq*kv),
		attn:  make([]float32, seq*q),
		gate:  make([]float32, seq*inter),
		up:    make([]float32, seq*inter),
		delta: make([]float32, seq*h),
	}
	a.cos, a.sin = ropeTables(seq, cfg.HeadDim, cfg.RopeTheta)
	return a
}

// forward runs the layer in place on a.x. realTokens is the number of non-padding tokens
// (padding is on the right): every query, padded or not, attends causally to real keys only.
func (l *decoderLayer) forward(dev *gpu.Device, cfg Config, a *activations, realTokens int) {
	seq, h, hd := a.seq, cfg.HiddenSize, cfg.HeadDim
	nh, nkv := cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	eps := float32(cfg.RMSNormEps)

	// Self-attention.
	dev.RMSNorm(a.xn, a.x, seq, h, eps, l.inputNorm)
	dev.Linear(a.q, a.xn, seq, l.q, l.qBias)
	dev.Linear(a.k, a.xn, seq, l.k, l.kBias)
	dev.Linear(a.v, a.xn, seq, l.v, l.vBias)
	dev.RMSNorm(a.q, a.q, seq*nh, hd, eps, l.qNorm) // rows of head_dim: one per (token, head)
	dev.RMSNorm(a.k, a.k, seq*nkv, hd, eps, l.kNorm)
	dev.RoPE(a.q, seq, nh, hd, nh*hd, a.cos, a.sin, false)
	dev.RoPE(a.k, seq, nkv, hd, nkv*hd, a.cos, a.sin, false)
	dev.Attention(a.attn, a.q, a.k, a.v, gpu.AttnParams{
		SeqQ: seq, SeqK: seq,
		Heads: nh, KVHeads: nkv, HeadDim: hd,
		Scale:    float32(1 / math.Sqrt(float64(hd))),
		Causal:   true,
		KeyValid: realTokens,
	})
	dev.Linear(a.delta, a.attn, seq, l.o, l.oBias)
	dev.Add(a.x, a.x, a.delta)

	// MLP: down(silu(gate(x)) · up(x)).
	dev.RMSNorm(a.xn, a.x, seq, h, eps, l.postNorm)
	dev.Linear(a.gate, a.xn, seq, l.gate, nil)
	dev.Linear(a.up, a.xn, seq, l.up, nil)
	dev.SiLU(a.gate, a.gate)
	dev.Mul(a.gate, a.gate, a.up)
	dev.Linear(a.delta, a.gate, seq, l.down, nil)
	dev.Add(a.x, a.x, a.delta)
}
