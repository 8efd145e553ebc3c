package vae

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

func (f *FLOPs) conv(in, out, k int, pix int64) {
	f.Conv += 2 * float64(in) * float64(out) * float64(k*k) * float64(pix)
}

func (f *FLOPs) resnet(in, out int, pix int64) {
	f.conv(in, out, 3, pix)
	f.conv(out, out, 3, pix)
	if in != out {
		f.conv(in, out, 1, pix)
	}
}

func (f *FLOPs) attention(ch int, pix int64) {
	f.Linear += 4 * 2 * float64(ch) * float64(ch) * float64(pix)
	f.Attention += 4 * float64(pix) * float64(pix) * float64(ch)
}

// DecodeFLOPs is the work of decoding a latent of h×w (the image is 8h×8w on the FLUX.2
// VAE): post_quant_conv, conv_in, the mid block (two resnets around the attention), the up
// blocks' resnets (with 1×1 shortcuts where the channels change) and upsampler convolutions
// at the doubled size, conv_out. Norms and activations are not counted.
func (c Config) DecodeFLOPs(h, w int) FLOPs {
	var f FLOPs
	ch := c.decoderChannels()
	n := len(ch)
	if n == 0 {
		return f
	}
	top := ch[n-1]
	hw := int64(h) * int64(w)
	if c.UsePostQuantConv {
		f.conv(c.LatentChannels, c.LatentChannels, 1, hw)
	}
	f.conv(c.LatentChannels, top, 3, hw)
	f.resnet(top, top, hw)
	if c.MidBlockAddAttention {
		f.attention(top, hw)
	}
	f.resnet(top, top, hw)
	prev := top
	for i := range n {
		out := ch[n-1-i]
		for j := range c.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			f.resnet(in, out, hw)
		}
		if i < n-1 {
			hw *= 4
			f.conv(out, out, 3, hw)
		}
		prev = out
	}
	f.conv(ch[0], c.OutChannels, 3, hw)
	return f
}

// EncodeFLOPs is the work of encoding an image of height×width pixels: conv_in, the down
// blocks' resnets and stride-2 downsampler convolutions (at the halved size), the mid block,
// conv_out and quant_conv. Norms and activations are not counted.
func (c Config) EncodeFLOPs(height, width int) FLOPs {
	var f FLOPs
	ch := c.BlockOutChannels
	if len(ch) == 0 {
		return f
	}
	h, w := height, width
	pix := func() int64 { return int64(h) * int64(w) }
	f.conv(c.InChannels, ch[0], 3, pix())
	prev := ch[0]
	for i, out := range ch {
		for j := range c.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			f.resnet(in, out, pix())
		}
		if i < len(ch)-1 {
			h, w = (h-1)/2+1, (w-1)/2+1
			f.conv(out, out, 3, pix())
		}
		prev = out
	}
	top := ch[len(ch)-1]
	f.resnet(top, top, pix())
	if c.MidBlockAddAttention {
		f.attention(top, pix())
	}
	f.resnet(top, top, pix())
	f.conv(top, 2*c.LatentChannels, 3, pix())
	if c.UseQuantConv {
		f.conv(2*c.LatentChannels, c.LatentChannels, 1, pix())
	}
	return f
}
