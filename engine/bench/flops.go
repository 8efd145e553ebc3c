package bench

import (
	"strconv"
	"strings"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
)

// The FLOP counts follow the cost model of SPEC.md, computed from the configs instead of
// rounded parameter counts: 2 FLOPs per multiply-add of every matrix product (Linear,
// convolution) for the rows it really sees, plus attention's two products (QKᵀ and PV,
// 4·L²·width per layer; causal attention is counted in full, as a nominal figure). Norms,
// activations, RoPE and softmax are not counted.

// EncoderFLOPs is the cost of encoding one prompt of tokens tokens up to hidden state upto
// (the encoder runs layers 0..upto-1; FLUX.2-klein needs upto 27).
func EncoderFLOPs(cfg qwen3.Config, tokens, upto int) float64 {
	var flops float64
	for _, s := range qwen3.TensorSpecs(cfg) {
		layer, ok := layerIndex(s.Name, "model.layers.")
		if !ok || layer >= upto || len(s.Shape) != 2 {
			continue // the embedding is a lookup; the final norm is not run below the last layer
		}
		flops += 2 * float64(tokens) * float64(s.Shape[0]) * float64(s.Shape[1])
	}
	layers := min(upto, cfg.NumHiddenLayers)
	flops += float64(layers) * 4 * float64(tokens) * float64(tokens) * float64(cfg.QDim())
	return flops
}

// TransformerFLOPs is the cost of one transformer forward pass over txt text tokens and img
// image tokens (target plus reference tokens): the image-stream weights of the double blocks
// see the image rows, the text-stream weights the text rows, the single blocks all rows, the
// timestep and modulation linears one row; joint attention over txt+img tokens in every block.
func TransformerFLOPs(cfg flux2.Config, txt, img int) float64 {
	var flops float64
	for _, s := range flux2.TensorSpecs(cfg) {
		if len(s.Shape) != 2 {
			continue
		}
		flops += 2 * float64(transformerRows(s.Name, txt, img)) * float64(s.Shape[0]) * float64(s.Shape[1])
	}
	l := float64(txt + img)
	flops += float64(cfg.Blocks()) * 4 * l * l * float64(cfg.Hidden())
	return flops
}

// transformerRows is how many token rows a transformer weight multiplies.
func transformerRows(name string, txt, img int) int {
	switch {
	case strings.HasPrefix(name, "single_transformer_blocks."):
		return txt + img
	case strings.HasPrefix(name, "transformer_blocks."):
		if strings.Contains(name, ".add_") || strings.Contains(name, ".to_add_out.") || strings.Contains(name, ".ff_context.") {
			return txt
		}
		return img
	case strings.HasPrefix(name, "context_embedder."):
		return txt
	case strings.HasPrefix(name, "x_embedder."), strings.HasPrefix(name, "proj_out."):
		return img
	default: // timestep embedder, modulations, norm_out: computed once per pass
		return 1
	}
}

// VAEDecodeFLOPs is the cost of decoding a latent of h×w (the image is 8h×8w): every
// convolution (post_quant_conv, conv_in, the resnets' convs and shortcuts, the upsamplers'
// convs at the doubled size, conv_out) and the mid block's attention (four c×c linears per
// pixel plus 4·(hw)²·c for the two products).
func VAEDecodeFLOPs(cfg vae.Config, h, w int) float64 {
	ch := cfg.DecoderBlockOutChannels
	if len(ch) == 0 {
		ch = cfg.BlockOutChannels
	}
	if len(ch) == 0 {
		return 0
	}
	var macs float64
	conv := func(out, in, k, hh, ww int) {
		macs += float64(out) * float64(in) * float64(k*k) * float64(hh) * float64(ww)
	}
	resnet := func(in, out, hh, ww int) {
		conv(out, in, 3, hh, ww)
		conv(out, out, 3, hh, ww)
		if in != out {
			conv(out, in, 1, hh, ww)
		}
	}
	lc, top := cfg.LatentChannels, ch[len(ch)-1]
	if cfg.UsePostQuantConv {
		conv(lc, lc, 1, h, w)
	}
	conv(top, lc, 3, h, w)
	resnet(top, top, h, w)
	if cfg.MidBlockAddAttention {
		hw := float64(h * w)
		macs += 4*float64(top)*float64(top)*hw + 2*hw*hw*float64(top)
	}
	resnet(top, top, h, w)
	prev, hh, ww := top, h, w
	for i := range ch {
		out := ch[len(ch)-1-i]
		for j := range cfg.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			resnet(in, out, hh, ww)
		}
		prev = out
		if i < len(ch)-1 {
			hh, ww = 2*hh, 2*ww
			conv(out, out, 3, hh, ww)
		}
	}
	conv(cfg.OutChannels, ch[0], 3, hh, ww)
	return 2 * macs
}

// layerIndex parses the layer number after prefix ("model.layers.12.mlp..." -> 12).
func layerIndex(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(num)
	return i, err == nil
}

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
