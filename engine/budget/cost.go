package budget

import (
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
)

// TextTokens is the prompt length the transformer always sees (padded chat template).
const TextTokens = 512

// Work is the floating-point work of a phase, split by the kernel that does it (each runs at
// its own measured rate).
type Work struct {
	Linear    float64 // matrix products with weights (Linear, 1×1 convolutions excluded)
	Attention float64 // q·kᵀ and p·v products
	Conv      float64 // convolutions (im2col products)
}

// Total is all the FLOPs.
func (w Work) Total() float64 { return w.Linear + w.Attention + w.Conv }

func (w Work) add(o Work) Work {
	return Work{Linear: w.Linear + o.Linear, Attention: w.Attention + o.Attention, Conv: w.Conv + o.Conv}
}

func (w Work) scale(f float64) Work {
	return Work{Linear: w.Linear * f, Attention: w.Attention * f, Conv: w.Conv * f}
}

// Seconds is the time of w at the calibrated rates (0 when c is not valid).
func (w Work) Seconds(c Calibration) float64 {
	if !c.Valid() {
		return 0
	}
	return w.Linear/(c.LinearGFLOPS*1e9) + w.Attention/(c.AttentionGFLOPS*1e9) + w.Conv/(c.ConvGFLOPS*1e9)
}

const f32 = 4 // bytes per activation value

// transformerWork is one Forward over txt text and img image tokens: 2 FLOPs per weight
// per token through every block (each token uses one stream's weights in the double
// blocks), plus 4·S²·hidden of attention per block.
func transformerWork(c flux2.Config, txt, img int) Work {
	d, mlp := float64(c.Hidden()), float64(c.MLPHidden())
	s := float64(txt + img)
	double := 4*d*d + 3*d*mlp
	single := (3*d+2*mlp)*d + d*(d+mlp)
	lin := s*(float64(c.NumLayers)*double+float64(c.NumSingleLayers)*single) +
		float64(txt)*float64(c.JointAttentionDim)*d + float64(img)*float64(c.InChannels+c.OutChannels)*d +
		float64(c.TimestepGuidanceChannels)*d + 18*d*d // timestep embedding and modulations, once per call
	return Work{Linear: 2 * lin, Attention: float64(c.Blocks()) * 4 * s * s * d}
}

// transformerScratchBytes is the activation buffer Forward carves its work areas from (and
// keeps between calls): S·(7·hidden + 3·mlp + 2·head_dim) floats (flux2 bufferSizes).
func transformerScratchBytes(c flux2.Config, s int) int64 {
	return int64(s) * int64(7*c.Hidden()+3*c.MLPHidden()+2*c.AttentionHeadDim) * f32
}

// transformerKernelBytes are the device's pooled tiles during a Forward: attention scores
// for 128 query rows and bf16→f32 weight tiles of 256 rows.
func transformerKernelBytes(c flux2.Config, s int) int64 {
	widest := max(c.Hidden()+c.MLPHidden(), c.JointAttentionDim)
	return int64(128*s+128+256*widest) * f32
}

// encoderWork is a prompt through the layers the engine runs (causal attention: half the
// score matrix).
func encoderWork(c qwen3.Config, tokens int) Work {
	layers := float64(encoderLayers(c))
	t := float64(tokens)
	h, q, kv, in := float64(c.HiddenSize), float64(c.QDim()), float64(c.KVDim()), float64(c.IntermediateSize)
	perTok := h*q + 2*h*kv + q*h + 3*h*in
	return Work{Linear: 2 * t * layers * perTok, Attention: layers * 2 * t * t * q}
}

// encoderBytes are the encoder's activations for one prompt (qwen3 newActivations, the
// stacked output and the device tiles).
func encoderBytes(c qwen3.Config, tokens int) int64 {
	h, q, kv, in, hd := c.HiddenSize, c.QDim(), c.KVDim(), c.IntermediateSize, c.HeadDim
	act := tokens * (3*h + 2*q + 2*kv + 2*in + 2*hd)
	out := tokens * len(qwen3.DefaultLayers) * h
	tiles := 256*max(in, q, h) + 128*tokens
	return int64(act+out+tiles) * f32
}

// vaeWalk is the work and largest activation (values) of a VAE pass.
type vaeWalk struct {
	work   Work
	maxBuf int64 // the engine allocates three buffers of this many values
	cols   int64 // largest im2col tile (gpu.Conv2D)
	kernel int64 // largest bf16 kernel widened to float32
	attnHW int   // tokens of the mid-block attention
}

// gpu.Conv2D's im2col tiling: at most convTile output pixels, at least convMinTile, and
// about convColFloats values per tile.
const (
	convTile      = 4096
	convMinTile   = 256
	convColFloats = 1 << 21
)

func convFLOPs(in, out, k int, pix int64) float64 {
	return 2 * float64(in) * float64(out) * float64(k*k) * float64(pix)
}

func (w *vaeWalk) conv(in, out, k int, pix int64) {
	w.work.Conv += convFLOPs(in, out, k, pix)
	kdim := int64(in * k * k)
	w.kernel = max(w.kernel, kdim*int64(out))
	if k > 1 {
		tile := min(pix, max(convMinTile, min(convTile, convColFloats/kdim)))
		w.cols = max(w.cols, kdim*tile)
	}
}

func (w *vaeWalk) resnet(in, out int, pix int64) {
	w.conv(in, out, 3, pix)
	w.conv(out, out, 3, pix)
	if in != out {
		w.conv(in, out, 1, pix)
	}
}

func (w *vaeWalk) attention(c int, pix int64) {
	w.work.Linear += 4 * 2 * float64(c) * float64(c) * float64(pix)
	w.work.Attention += 4 * float64(pix) * float64(pix) * float64(c)
	w.attnHW = int(pix)
}

func decoderChannels(c vae.Config) []int {
	if len(c.DecoderBlockOutChannels) > 0 {
		return c.DecoderBlockOutChannels
	}
	return c.BlockOutChannels
}

// vaeDecode walks the decoder of a latent of h×w (image 8h×8w), mirroring vae.decode and
// vae.decodeBufSize.
func vaeDecode(c vae.Config, h, w int) vaeWalk {
	var v vaeWalk
	ch := decoderChannels(c)
	n := len(ch)
	top := ch[n-1]
	hw := int64(h) * int64(w)
	v.maxBuf = int64(max(c.LatentChannels, top)) * hw
	if c.UsePostQuantConv {
		v.conv(c.LatentChannels, c.LatentChannels, 1, hw)
	}
	v.conv(c.LatentChannels, top, 3, hw)
	v.resnet(top, top, hw)
	if c.MidBlockAddAttention {
		v.attention(top, hw)
		v.maxBuf = max(v.maxBuf, 2*int64(top)*hw)
	}
	v.resnet(top, top, hw)
	prev := top
	for i := range n {
		out := ch[n-1-i]
		for j := range c.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			v.resnet(in, out, hw)
			v.maxBuf = max(v.maxBuf, int64(max(in, out))*hw)
		}
		if i < n-1 {
			hw *= 4
			v.conv(out, out, 3, hw)
			v.maxBuf = max(v.maxBuf, int64(out)*hw)
		}
		prev = out
	}
	v.conv(ch[0], c.OutChannels, 3, hw)
	v.maxBuf = max(v.maxBuf, int64(max(ch[0], c.OutChannels))*hw)
	return v
}

// vaeEncode walks the encoder of an H×W image, mirroring vae.encode and vae.encodeBufSize.
func vaeEncode(c vae.Config, H, W int) vaeWalk {
	var v vaeWalk
	ch := c.BlockOutChannels
	h, w := H, W
	pix := func() int64 { return int64(h) * int64(w) }
	v.conv(c.InChannels, ch[0], 3, pix())
	v.maxBuf = int64(max(c.InChannels, ch[0])) * pix()
	prev := ch[0]
	for i, out := range ch {
		for j := range c.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			v.resnet(in, out, pix())
			v.maxBuf = max(v.maxBuf, int64(max(in, out))*pix())
		}
		if i < len(ch)-1 {
			h, w = (h-1)/2+1, (w-1)/2+1
			v.conv(out, out, 3, pix())
			v.maxBuf = max(v.maxBuf, int64(out)*pix())
		}
		prev = out
	}
	top := ch[len(ch)-1]
	v.resnet(top, top, pix())
	if c.MidBlockAddAttention {
		v.attention(top, pix())
		v.maxBuf = max(v.maxBuf, 2*int64(top)*pix())
	}
	v.resnet(top, top, pix())
	v.conv(top, 2*c.LatentChannels, 3, pix())
	v.maxBuf = max(v.maxBuf, int64(max(top, 2*c.LatentChannels))*pix())
	if c.UseQuantConv {
		v.conv(2*c.LatentChannels, c.LatentChannels, 1, pix())
	}
	return v
}

// bytes is the memory of a VAE pass: three rotating buffers, the device's im2col tile,
// widened bf16 kernel and attention score tile, plus ioValues of input and output.
func (v vaeWalk) bytes(ioValues int64) int64 {
	scores := int64(128 * (v.attnHW + 1))
	return (3*v.maxBuf + v.cols + v.kernel + scores + ioValues) * f32
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
	dch := decoderChannels(c)
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
