package qwen3

import (
	"context"
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
// cancelRows bounds the tokens one Linear call of the encoder takes on a CPU backend, where
// each call runs to its end: a cancelled encode then stops within one such slice (the
// 512-token MLP product, 25 GFLOP at 4B, took 1–2 s whole on a loaded 2-core machine). A
// device keeps whole calls: its work runs at Flush, between layers.
const cancelRows = 128

// forward runs the layer over a's tokens; it stops with ctx's error between products once
// ctx is done (a's state is then unusable).
func (l *layerTensors) forward(ctx context.Context, b gpu.Backend, cfg Config, a *activations, realTokens int) error {
	seq, h, hd := a.seq, cfg.HiddenSize, cfg.HeadDim
	nh, nkv := cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	eps := float32(cfg.RMSNormEps)

	// Self-attention.
	b.RMSNorm(a.xn, a.x, l.inputNorm, seq, h, eps)
	for _, p := range []struct {
		y, w, bias gpu.Tensor
		name       string
	}{{a.q, l.q, l.qBias, "self_attn.q_proj"}, {a.k, l.k, l.kBias, "self_attn.k_proj"}, {a.v, l.v, l.vBias, "self_attn.v_proj"}} {
		if err := l.linear(ctx, b, a, p.y, a.xn, p.w, p.bias, p.name); err != nil {
			return err
		}
	}
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
	if err := l.linear(ctx, b, a, a.delta, a.attn, l.o, l.oBias, "self_attn.o_proj"); err != nil {
		return err
	}
	b.Add(a.x, a.x, a.delta)

	// MLP: down(silu(gate(x)) · up(x)).
	b.RMSNorm(a.xn, a.x, l.postNorm, seq, h, eps)
	if err := l.linear(ctx, b, a, a.gate, a.xn, l.gate, gpu.Tensor{}, "mlp.gate_proj"); err != nil {
		return err
	}
	if err := l.linear(ctx, b, a, a.up, a.xn, l.up, gpu.Tensor{}, "mlp.up_proj"); err != nil {
		return err
	}
	b.SiLU(a.gate, a.gate)
	b.Mul(a.gate, a.gate, a.up)
	if err := l.linear(ctx, b, a, a.delta, a.gate, l.down, gpu.Tensor{}, "mlp.down_proj"); err != nil {
		return err
	}
	b.Add(a.x, a.x, a.delta)
	return nil
}

// linear computes y = x·wᵀ + bias over the pass's tokens and adds the adapters' terms of
// this layer's module name; on a CPU backend it goes cancelRows tokens at a time and stops
// with ctx's error between them. Each output row is the same whichever slice computes it.
func (l *layerTensors) linear(ctx context.Context, b gpu.Backend, a *activations, y, x, w, bias gpu.Tensor, name string) error {
	step := a.seq
	if b.Info().Kind == gpu.KindCPU {
		step = cancelRows
	}
	in, out := x.Len()/a.seq, y.Len()/a.seq
	for r0 := 0; r0 < a.seq; r0 += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		r1 := min(r0+step, a.seq)
		ys, xs := y.Rows(r0, r1, out), x.Rows(r0, r1, in)
		b.Linear(ys, xs, w, bias, r1-r0)
		if a.ad.Active() {
			a.ad.AddUsing(a.adTmp, ys, xs, r1-r0, l.prefix+name)
		}
	}
	return nil
}
