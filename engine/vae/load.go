package vae

import (
	"fmt"
	"math"
	"strings"

	"kleinbild/engine/bind"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// conv is a 2-D convolution: kernel [out, in·k·k] ([out, in, k, k] row-major), bias [out].
type conv struct {
	w, b    gpu.Tensor
	in, out int
	k       int
}

// groupNorm holds a GroupNorm's per-channel affine parameters [channels].
type groupNorm struct {
	gamma, beta gpu.Tensor
}

// linear is a Linear layer (PyTorch layout: w [out, in]) with bias [out].
type linear struct {
	w, b gpu.Tensor
}

// resnet is diffusers' ResnetBlock2D without time embedding: norm1 silu conv1 norm2 silu
// conv2, plus the input (through a 1×1 conv when the channel count changes).
type resnet struct {
	in, out      int
	norm1, norm2 groupNorm
	conv1, conv2 conv
	shortcut     *conv
}

// attention is the one-head self-attention of the mid blocks.
type attention struct {
	channels   int
	norm       groupNorm
	q, k, v, o linear
}

// midBlock is resnet, attention (optional), resnet.
type midBlock struct {
	res0, res1 resnet
	attn       *attention
}

// level is one resolution level: resnets, then an optional stride-2 down- or nearest ×2
// up-sampling conv.
type level struct {
	resnets []resnet
	resize  *conv
}

type encoder struct {
	convIn  conv
	levels  []level
	mid     midBlock
	normOut groupNorm
	convOut conv
	quant   *conv // only the first LatentChannels output channels (the mode) are kept
}

type decoder struct {
	postQuant *conv
	convIn    conv
	mid       midBlock
	levels    []level
	normOut   groupNorm
	convOut   conv
}

// TensorSpec is the name and shape of one tensor a VAE checkpoint must hold.
type TensorSpec = weights.TensorSpec

// TensorSpecs lists every tensor Load reads for cfg (bf16 in the real checkpoint), in load
// order: encoder, decoder, then bn.running_mean and bn.running_var. The real file also holds
// the int64 scalar bn.num_batches_tracked, which nothing reads. It is the list Load checks:
// both come from the same binding code.
func TensorSpecs(cfg Config) []TensorSpec {
	l := reader{bind.Record()}
	l.bind(cfg)
	return l.Specs()
}

// reader walks the VAE's modules, reading each one's tensors through the binder.
type reader struct{ *bind.Binder }

// checkCounts compares the numbers of levels and resnets cfg describes with the blocks the
// checkpoint holds, before anything is allocated per block.
func checkCounts(cfg Config, ck weights.Source) error {
	n := len(cfg.BlockOutChannels)
	for _, side := range []struct{ prefix, field string }{
		{"encoder.down_blocks.", "block_out_channels"}, {"decoder.up_blocks.", "block_out_channels"},
	} {
		if have := ck.Count(side.prefix); have < n {
			return fmt.Errorf("field %q has %d levels, but the weights hold %d %s", side.field, n, have, strings.TrimSuffix(side.prefix, "."))
		}
	}
	for i := range n {
		for _, stack := range []struct {
			prefix string
			want   int
		}{
			{fmt.Sprintf("encoder.down_blocks.%d.resnets.", i), cfg.LayersPerBlock},
			{fmt.Sprintf("decoder.up_blocks.%d.resnets.", i), cfg.LayersPerBlock + 1},
		} {
			if have := ck.Count(stack.prefix); have < stack.want {
				return fmt.Errorf("field \"layers_per_block\" is %d, but the weights hold %d %s", cfg.LayersPerBlock, have, strings.TrimSuffix(stack.prefix, "."))
			}
		}
	}
	return nil
}

// bind reads every tensor of the model described by cfg.
func (l reader) bind(cfg Config) (enc encoder, dec decoder, bnMean, bnStd gpu.Tensor) {
	enc = l.encoder(cfg)
	dec = l.decoder(cfg)
	bnMean, bnStd = l.batchNorm(cfg.PatchedChannels(), cfg.BatchNormEps)
	return enc, dec, bnMean, bnStd
}

func (l reader) conv(name string, out, in, k int) conv {
	return l.convRows(name, out, in, k, out)
}

// convRows reads a conv and keeps its first rows output channels.
func (l reader) convRows(name string, out, in, k, rows int) conv {
	c := conv{
		w:   l.Weight(name+".weight", rows, out, in, k, k),
		in:  in,
		out: rows,
		k:   k,
	}
	if b := l.HostVector(name+".bias", out); b != nil {
		c.b = l.Upload(name+".bias", b[:rows])
	}
	return c
}

func (l reader) norm(name string, c int) groupNorm {
	return groupNorm{gamma: l.Vector(name+".weight", c), beta: l.Vector(name+".bias", c)}
}

func (l reader) linear(name string, out, in int) linear {
	return linear{w: l.Weight(name+".weight", 0, out, in), b: l.Vector(name+".bias", out)}
}

func (l reader) resnet(name string, in, out int) resnet {
	r := resnet{
		in:    in,
		out:   out,
		norm1: l.norm(name+".norm1", in),
		conv1: l.conv(name+".conv1", out, in, 3),
		norm2: l.norm(name+".norm2", out),
		conv2: l.conv(name+".conv2", out, out, 3),
	}
	if in != out {
		sc := l.conv(name+".conv_shortcut", out, in, 1)
		r.shortcut = &sc
	}
	return r
}

func (l reader) mid(name string, c int, withAttn bool) midBlock {
	m := midBlock{res0: l.resnet(name+".resnets.0", c, c)}
	if withAttn {
		a := name + ".attentions.0"
		m.attn = &attention{
			channels: c,
			norm:     l.norm(a+".group_norm", c),
			q:        l.linear(a+".to_q", c, c),
			k:        l.linear(a+".to_k", c, c),
			v:        l.linear(a+".to_v", c, c),
			o:        l.linear(a+".to_out.0", c, c),
		}
	}
	m.res1 = l.resnet(name+".resnets.1", c, c)
	return m
}

func (l reader) encoder(cfg Config) encoder {
	ch := cfg.BlockOutChannels
	e := encoder{convIn: l.conv("encoder.conv_in", ch[0], cfg.InChannels, 3)}
	prev := ch[0]
	for i, out := range ch {
		var lv level
		for j := range cfg.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			lv.resnets = append(lv.resnets, l.resnet(fmt.Sprintf("encoder.down_blocks.%d.resnets.%d", i, j), in, out))
		}
		if i < len(ch)-1 {
			d := l.conv(fmt.Sprintf("encoder.down_blocks.%d.downsamplers.0.conv", i), out, out, 3)
			lv.resize = &d
		}
		e.levels = append(e.levels, lv)
		prev = out
	}
	top := ch[len(ch)-1]
	e.mid = l.mid("encoder.mid_block", top, cfg.MidBlockAddAttention)
	e.normOut = l.norm("encoder.conv_norm_out", top)
	e.convOut = l.conv("encoder.conv_out", 2*cfg.LatentChannels, top, 3)
	if cfg.UseQuantConv {
		// The mode is the first LatentChannels channels: keep only those output rows.
		lc := cfg.LatentChannels
		q := l.convRows("quant_conv", 2*lc, 2*lc, 1, lc)
		e.quant = &q
	}
	return e
}

func (l reader) decoder(cfg Config) decoder {
	ch := cfg.DecoderChannels()
	top := ch[len(ch)-1]
	var d decoder
	if cfg.UsePostQuantConv {
		p := l.conv("post_quant_conv", cfg.LatentChannels, cfg.LatentChannels, 1)
		d.postQuant = &p
	}
	d.convIn = l.conv("decoder.conv_in", top, cfg.LatentChannels, 3)
	d.mid = l.mid("decoder.mid_block", top, cfg.MidBlockAddAttention)
	prev := top
	for i := range ch {
		out := ch[len(ch)-1-i]
		var lv level
		for j := range cfg.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			lv.resnets = append(lv.resnets, l.resnet(fmt.Sprintf("decoder.up_blocks.%d.resnets.%d", i, j), in, out))
		}
		if i < len(ch)-1 {
			u := l.conv(fmt.Sprintf("decoder.up_blocks.%d.upsamplers.0.conv", i), out, out, 3)
			lv.resize = &u
		}
		d.levels = append(d.levels, lv)
		prev = out
	}
	d.normOut = l.norm("decoder.conv_norm_out", ch[0])
	d.convOut = l.conv("decoder.conv_out", cfg.OutChannels, ch[0], 3)
	return d
}

// batchNorm reads bn.running_mean/var and returns mean and sqrt(var+eps), both float32 as
// the pipeline computes them.
func (l reader) batchNorm(c int, eps float64) (mean, std gpu.Tensor) {
	m := l.HostVector("bn.running_mean", c)
	v := l.HostVector("bn.running_var", c)
	if m == nil || v == nil {
		return gpu.Tensor{}, gpu.Tensor{}
	}
	sd := make([]float32, c)
	for i, x := range v {
		s := x + float32(eps)
		if !(s > 0) || math.IsInf(float64(s), 0) {
			l.Fail(fmt.Errorf("tensor %q: running variance %v at channel %d gives no valid standard deviation", "bn.running_var", x, i))
			continue
		}
		sd[i] = float32(math.Sqrt(float64(s)))
	}
	return l.Upload("bn.running_mean", m), l.Upload("bn.running_var", sd)
}

// maxLoadErrors caps how many tensor problems a load error lists.
const maxLoadErrors = 20
