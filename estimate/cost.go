package estimate

import (
	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
	"kleinbild/gpu/cpu"
)

// TextTokens is the prompt length the transformer always sees (padded chat template).
const TextTokens = engine.TextTokens

// Work is the work of a phase: its FLOPs split by the kernel that does them (each runs at
// its own measured rate), and the units of the costs that do not scale with FLOPs.
type Work struct {
	Linear    float64 // matrix products with weights (Linear, 1×1 convolutions excluded)
	Attention float64 // q·kᵀ and p·v products
	Conv      float64 // convolutions (im2col products)
	// Scores are attention scores (heads × queries × keys), each through the softmax.
	Scores float64
	// Columns are the convolutions' input channels × kernel taps × output pixels.
	Columns float64
	// Values are activation values through a normalization and an activation function
	// (approximately: the MLPs' hidden values and a few passes over each hidden state).
	Values float64
}

// Total is all the FLOPs.
func (w Work) Total() float64 { return w.Linear + w.Attention + w.Conv }

func (w Work) add(o Work) Work {
	return Work{Linear: w.Linear + o.Linear, Attention: w.Attention + o.Attention, Conv: w.Conv + o.Conv,
		Scores: w.Scores + o.Scores, Columns: w.Columns + o.Columns, Values: w.Values + o.Values}
}

func (w Work) scale(f float64) Work {
	return Work{Linear: w.Linear * f, Attention: w.Attention * f, Conv: w.Conv * f,
		Scores: w.Scores * f, Columns: w.Columns * f, Values: w.Values * f}
}

// Seconds is the time of w at the calibrated rates (0 when c is not valid); a unit whose
// rate c lacks costs nothing.
func (w Work) Seconds(c Calibration) float64 {
	if !c.Valid() {
		return 0
	}
	s := w.Linear/(c.LinearGFLOPS*1e9) + w.Attention/(c.AttentionGFLOPS*1e9) + w.Conv/(c.ConvGFLOPS*1e9)
	for _, u := range [...]struct{ n, rate float64 }{{w.Scores, c.AttentionScoresPerSec}, {w.Columns, c.ConvColumnsPerSec}, {w.Values, c.ValuesPerSec}} {
		if positive(u.rate) {
			s += u.n / u.rate
		}
	}
	return s
}

const f32 = 4 // bytes per activation value

// transformerWork is one Forward over txt text and img image tokens (flux2.Config.ForwardFLOPs).
// Its values are, per token and block, the MLP's hidden values and five passes over the
// hidden state (norms, modulation, gated residuals).
func transformerWork(c flux2.Config, txt, img int) Work {
	lin, attn := c.ForwardFLOPs(txt, img)
	perTok := float64(c.MLPHidden() + 5*c.Hidden())
	return Work{Linear: lin, Attention: attn, Scores: attn / float64(4*c.AttentionHeadDim),
		Values: float64(txt+img) * float64(c.Blocks()) * perTok}
}

// transformerScratchBytes are the activation tensors Forward works in (and keeps between
// calls): flux2.Config.ForwardActivations.
func transformerScratchBytes(c flux2.Config, s int) int64 {
	return int64(c.ForwardActivations(s)) * f32
}

// transformerKernelBytes are the CPU backend's pooled tiles during a Forward: attention
// scores and the widest bf16→f32 weight tile (gpu/cpu's AttentionScratchFloats and
// LinearScratchFloats, over the checkpoint's weight matrices).
func transformerKernelBytes(c flux2.Config, s int) int64 {
	tile := 0
	for _, t := range flux2.TensorSpecs(c) {
		if len(t.Shape) == 2 {
			tile = max(tile, cpu.LinearScratchFloats(t.Shape[1], t.Shape[0]))
		}
	}
	return int64(cpu.AttentionScratchFloats(s)+tile) * f32
}

// encoderWork is a prompt through the layers the engine runs (qwen3.Config.EncodeFLOPs).
// Its values are, per token and layer, the MLP's hidden values and four passes over the
// hidden state (two norms, two residuals).
func encoderWork(c qwen3.Config, tokens int) Work {
	layers := encoderLayers(c)
	lin, attn := c.EncodeFLOPs(tokens, layers)
	return Work{Linear: lin, Attention: attn, Scores: attn / float64(4*c.HeadDim),
		Values: float64(tokens) * float64(layers) * float64(c.IntermediateSize+4*c.HiddenSize)}
}

// vaeWork is the work of a VAE pass over the products ls (vae.Config.DecodeLayers,
// EncodeLayers; FLOPs as vae.LayerFLOPs). The mid block's attention has one head as wide
// as its channels; a group norm and a SiLU precede every 3×3 convolution but the first.
func vaeWork(ls []vae.Layer) Work {
	f := vae.LayerFLOPs(ls)
	w := Work{Linear: f.Linear, Attention: f.Attention, Conv: f.Conv}
	for i, l := range ls {
		switch {
		case l.IsAttention():
			w.Scores += float64(l.Pixels) * float64(l.Pixels)
		case i > 0 && l.K > 1:
			w.Values += float64(l.In) * float64(l.Pixels)
		}
		if !l.IsAttention() {
			w.Columns += float64(l.In*l.K*l.K) * float64(l.Pixels)
		}
	}
	return w
}

// encoderBytes are the encoder's activations for one prompt (qwen3 newActivations), the
// stacked output on the host and the CPU backend's tiles (the widest bf16 weight tile of a
// layer and the attention scores).
func encoderBytes(c qwen3.Config, tokens int) int64 {
	return encoderActivationBytes(c, tokens) + int64(tokens*len(qwen3.DefaultLayers)*c.HiddenSize)*f32 + encoderKernelBytes(c, tokens)
}

// encoderActivationBytes are the tensors a prompt's encoding allocates on the backend:
// residual stream, norm output, q, k, v, attention output, gate, up, sub-block output and
// the RoPE tables (qwen3 newActivations).
func encoderActivationBytes(c qwen3.Config, tokens int) int64 {
	h, q, kv, in, hd := c.HiddenSize, c.QDim(), c.KVDim(), c.IntermediateSize, c.HeadDim
	return int64(tokens*(3*h+2*q+2*kv+2*in+2*hd)) * f32
}

// encoderKernelBytes are the CPU backend's pooled tiles of an encoding: the widest bf16
// weight tile of a layer's projections and the attention scores.
func encoderKernelBytes(c qwen3.Config, tokens int) int64 {
	h, q, kv, in := c.HiddenSize, c.QDim(), c.KVDim(), c.IntermediateSize
	tile := max(cpu.LinearScratchFloats(h, q), cpu.LinearScratchFloats(h, kv), cpu.LinearScratchFloats(q, h),
		cpu.LinearScratchFloats(h, in), cpu.LinearScratchFloats(in, h))
	return int64(tile+cpu.AttentionScratchFloats(tokens)) * f32
}

// vaeWalk is the largest activation (values) and the CPU backend's pooled tiles of a VAE
// pass.
type vaeWalk struct {
	maxBuf int64 // the engine allocates three buffers of this many values
	cols   int64 // largest im2col tile (gpu/cpu ConvScratchFloats)
	kernel int64 // largest bf16 kernel widened to float32 (ConvKernelScratchFloats)
	attnHW int   // tokens of the mid-block attention
}

// walkVAE sizes a pass over the products ls (vae.Config.DecodeLayers, EncodeLayers).
// 1×1 convolutions multiply the input directly: no im2col tile.
func walkVAE(ls []vae.Layer) vaeWalk {
	v := vaeWalk{maxBuf: vae.ActivationValues(ls)}
	for _, l := range ls {
		if l.IsAttention() {
			v.attnHW = int(l.Pixels)
			continue
		}
		kdim := l.In * l.K * l.K
		v.kernel = max(v.kernel, int64(cpu.ConvKernelScratchFloats(l.Out, kdim)))
		if l.K > 1 {
			v.cols = max(v.cols, int64(cpu.ConvScratchFloats(kdim, int(l.Pixels))))
		}
	}
	return v
}

// vaeDecode sizes the decode of a latent of h×w (image 8h×8w).
func vaeDecode(c vae.Config, h, w int) vaeWalk { return walkVAE(c.DecodeLayers(h, w)) }

// vaeEncode sizes the encode of an H×W image.
func vaeEncode(c vae.Config, H, W int) vaeWalk { return walkVAE(c.EncodeLayers(H, W)) }

// bytes is the memory of a VAE pass: the backend's three rotating buffers
// (allocatedBytes) plus the CPU backend's im2col tile, widened bf16 kernel and attention
// score tile.
func (v vaeWalk) bytes(ioValues int64) int64 {
	return v.allocatedBytes(ioValues) + (v.cols+v.kernel+int64(cpu.AttentionScratchFloats(v.attnHW)))*f32
}

// allocatedBytes are the tensors of a VAE pass on the backend: three rotating buffers plus
// ioValues of input and output.
func (v vaeWalk) allocatedBytes(ioValues int64) int64 {
	return (3*v.maxBuf + ioValues) * f32
}

// vaeParams counts the autoencoder's weights (encoder, decoder, quant convs, batch norm).
func vaeParams(c vae.Config) int64 {
	var n int64
	conv := func(in, out, k int) { n += int64(in*out*k*k + out) }
	norm := func(ch int) { n += 2 * int64(ch) }
	resnet := func(in, out int) {
		norm(in)
		conv(in, out, 3)
		norm(out)
		conv(out, out, 3)
		if in != out {
			conv(in, out, 1)
		}
	}
	mid := func(ch int) {
		resnet(ch, ch)
		resnet(ch, ch)
		if c.MidBlockAddAttention {
			norm(ch)
			n += 4 * int64(ch*ch+ch)
		}
	}
	ch := c.BlockOutChannels
	conv(c.InChannels, ch[0], 3)
	prev := ch[0]
	for i, out := range ch {
		for j := range c.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			resnet(in, out)
		}
		if i < len(ch)-1 {
			conv(out, out, 3)
		}
		prev = out
	}
	top := ch[len(ch)-1]
	mid(top)
	norm(top)
	conv(top, 2*c.LatentChannels, 3)
	conv(2*c.LatentChannels, 2*c.LatentChannels, 1)
	dch := c.DecoderChannels()
	dtop := dch[len(dch)-1]
	conv(c.LatentChannels, c.LatentChannels, 1)
	conv(c.LatentChannels, dtop, 3)
	mid(dtop)
	prev = dtop
	for i := range dch {
		out := dch[len(dch)-1-i]
		for j := range c.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			resnet(in, out)
		}
		if i < len(dch)-1 {
			conv(out, out, 3)
		}
		prev = out
	}
	norm(dch[0])
	conv(dch[0], c.OutChannels, 3)
	n += 2 * int64(4*c.LatentChannels)
	return n
}
