package vae

// Layer is one product of a VAE pass, in execution order: a K×K convolution from In to Out
// channels with Pixels output pixels, or (K == 0) the mid block's attention over Pixels
// tokens of Out channels. DecodeLayers and EncodeLayers are the one description of the
// network's shape that the FLOP counts, the activation buffer size (ActivationValues) and the
// memory estimator (package estimate) derive from.
type Layer struct {
	In, Out, K int
	Pixels     int64
}

// IsAttention reports whether l is the mid block's attention.
func (l Layer) IsAttention() bool { return l.K == 0 }

// layers collects a pass's Layers.
type layers []Layer

func (ls *layers) conv(in, out, k int, pix int64) { *ls = append(*ls, Layer{in, out, k, pix}) }

func (ls *layers) resnet(in, out int, pix int64) {
	ls.conv(in, out, 3, pix)
	ls.conv(out, out, 3, pix)
	if in != out {
		ls.conv(in, out, 1, pix)
	}
}

func (ls *layers) attention(ch int, pix int64) { *ls = append(*ls, Layer{ch, ch, 0, pix}) }

// DecodeLayers lists the products of decoding a latent of h×w (the image is 8h×8w on the
// FLUX.2 VAE): post_quant_conv, conv_in, the mid block (two resnets around the attention),
// the up blocks' resnets (with 1×1 shortcuts where the channels change) and upsampler
// convolutions at the doubled size, conv_out. Norms and activations are not products.
func (c Config) DecodeLayers(h, w int) []Layer {
	var ls layers
	ch := c.DecoderChannels()
	n := len(ch)
	if n == 0 {
		return nil
	}
	top := ch[n-1]
	hw := int64(h) * int64(w)
	if c.UsePostQuantConv {
		ls.conv(c.LatentChannels, c.LatentChannels, 1, hw)
	}
	ls.conv(c.LatentChannels, top, 3, hw)
	ls.resnet(top, top, hw)
	if c.MidBlockAddAttention {
		ls.attention(top, hw)
	}
	ls.resnet(top, top, hw)
	prev := top
	for i := range n {
		out := ch[n-1-i]
		for j := range c.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			ls.resnet(in, out, hw)
		}
		if i < n-1 {
			hw *= 4
			ls.conv(out, out, 3, hw)
		}
		prev = out
	}
	ls.conv(ch[0], c.OutChannels, 3, hw)
	return ls
}

// EncodeLayers lists the products of encoding an image of height×width pixels: conv_in,
// the down blocks' resnets and stride-2 downsampler convolutions (at the halved size), the
// mid block, conv_out and quant_conv.
func (c Config) EncodeLayers(height, width int) []Layer {
	var ls layers
	ch := c.BlockOutChannels
	if len(ch) == 0 {
		return nil
	}
	h, w := height, width
	pix := func() int64 { return int64(h) * int64(w) }
	ls.conv(c.InChannels, ch[0], 3, pix())
	prev := ch[0]
	for i, out := range ch {
		for j := range c.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			ls.resnet(in, out, pix())
		}
		if i < len(ch)-1 {
			h, w = (h-1)/2+1, (w-1)/2+1
			ls.conv(out, out, 3, pix())
		}
		prev = out
	}
	top := ch[len(ch)-1]
	ls.resnet(top, top, pix())
	if c.MidBlockAddAttention {
		ls.attention(top, pix())
	}
	ls.resnet(top, top, pix())
	ls.conv(top, 2*c.LatentChannels, 3, pix())
	if c.UseQuantConv {
		ls.conv(2*c.LatentChannels, c.LatentChannels, 1, pix())
	}
	return ls
}

// ActivationValues is the largest activation of a pass over ls, the size of each of the
// three rotating buffers the pass allocates: a convolution's input or output, or the
// attention's two [tokens, channels] scratch matrices.
func ActivationValues(ls []Layer) int64 {
	var n int64
	for _, l := range ls {
		if l.IsAttention() {
			n = max(n, 2*int64(l.Out)*l.Pixels)
		} else {
			n = max(n, int64(max(l.In, l.Out))*l.Pixels)
		}
	}
	return n
}

// FLOPs is the floating-point work of a VAE pass, 2 FLOPs per multiply-add, split by the
// kind of product (each runs at its own speed).
type FLOPs struct {
	// Conv is every convolution, 1×1 ones included.
	Conv float64
	// Linear is the mid block attention's four projections (q, k, v, out).
	Linear float64
	// Attention is the mid block attention's q·kᵀ and p·v products, 4·(h·w)²·channels.
	Attention float64
}

// Total is all the FLOPs.
func (f FLOPs) Total() float64 { return f.Conv + f.Linear + f.Attention }

// LayerFLOPs is the work of the products ls.
func LayerFLOPs(ls []Layer) FLOPs {
	var f FLOPs
	for _, l := range ls {
		pix := float64(l.Pixels)
		if l.IsAttention() {
			ch := float64(l.Out)
			f.Linear += 4 * 2 * ch * ch * pix
			f.Attention += 4 * pix * pix * ch
			continue
		}
		f.Conv += 2 * float64(l.In) * float64(l.Out) * float64(l.K*l.K) * pix
	}
	return f
}

// DecodeFLOPs is the work of decoding a latent of h×w (see DecodeLayers).
func (c Config) DecodeFLOPs(h, w int) FLOPs { return LayerFLOPs(c.DecodeLayers(h, w)) }

// EncodeFLOPs is the work of encoding an image of height×width pixels (see EncodeLayers).
func (c Config) EncodeFLOPs(height, width int) FLOPs {
	return LayerFLOPs(c.EncodeLayers(height, width))
}
