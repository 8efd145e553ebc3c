package bench

import (
	"slices"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
)

// The FLOP counts come from the model packages (qwen3.Config.EncodeFLOPs,
// flux2.Config.ForwardFLOPs, vae.Config.DecodeFLOPs), the same functions package estimate
// estimates times with: 2 FLOPs per multiply-add of every matrix product (Linear,
// convolution) for the rows it really sees, plus attention's two products (QKᵀ and PV; the
// text encoder's causal attention counts the half its mask leaves). Norms, activations,
// RoPE and softmax are not counted.

// costModel holds what the per-phase FLOP counts need.
type costModel struct {
	te  qwen3.Config
	tr  flux2.Config
	vae vae.Config
	txt int // text tokens
}

// encode is the cost of one prompt encoding up to the deepest stacked hidden state.
func (c costModel) encode() float64 {
	lin, attn := c.te.EncodeFLOPs(c.txt, slices.Max(qwen3.DefaultLayers))
	return lin + attn
}

// step is the cost of one transformer pass over img image tokens.
func (c costModel) step(img int) float64 {
	lin, attn := c.tr.ForwardFLOPs(c.txt, img)
	return lin + attn
}

// decode is the cost of decoding a latent of h×w.
func (c costModel) decode(h, w int) float64 { return c.vae.DecodeFLOPs(h, w).Total() }

// paramCount sums the elements of a list of shapes.
func paramCount(shapes [][]int) int64 {
	var n int64
	for _, s := range shapes {
		p := int64(1)
		for _, d := range s {
			p *= int64(d)
		}
		n += p
	}
	return n
}
