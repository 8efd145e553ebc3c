package vae

import (
	"context"
	"math"

	"kleinbild/gpu"
)

// normEps is the GroupNorm epsilon of every norm in the VAE (resnets, attention, outputs).
const normEps = 1e-6

// pass is the state of one Encode or Decode: three activation buffers of the largest
// activation size that rotate through the blocks (the current activation lives in
// bufs[cur], the other two are scratch), plus cancellation and progress bookkeeping.
// Peak memory is therefore three times the largest activation: for the real decoder the
// 256-channel full-resolution tensor, 3 × 256 MB at 512² and 3 × 1 GB at 1024².
type pass struct {
	v           *VAE
	dev         *gpu.Device
	ctx         context.Context
	progress    func(done, total int)
	done, total int
	bufs        [3][]float32
	cur         int
	h, w        int // spatial size of the current activation
}

func (v *VAE) newPass(ctx context.Context, progress func(done, total int), total, bufSize int) *pass {
	p := &pass{v: v, dev: v.dev, ctx: ctx, progress: progress, total: total}
	for i := range p.bufs {
		p.bufs[i] = make([]float32, bufSize)
	}
	return p
}

// step reports one finished block and returns the context's error, if any.
func (p *pass) step() error {
	p.done++
	if p.progress != nil {
		p.progress(p.done, p.total)
	}
	return p.ctx.Err()
}

func (p *pass) hw() int { return p.h * p.w }

// scratch returns the i-th (1 or 2) buffer after the current one.
func (p *pass) scratch(i int) []float32 { return p.bufs[(p.cur+i)%3] }

// conv runs c on in [c.in, h, w] into out. stride2 selects the downsampler's stride-2 conv
// after zero padding right and bottom by one; otherwise "same" padding (k/2) is used.
func (p *pass) conv(out, in []float32, c conv, h, w int, stride2 bool) {
	cp := gpu.ConvParams{InC: c.in, InH: h, InW: w, KH: c.k, KW: c.k, Stride: 1}
	if stride2 {
		cp.Stride, cp.PadBottom, cp.PadRight = 2, 1, 1
	} else {
		pad := c.k / 2
		cp.PadTop, cp.PadLeft, cp.PadBottom, cp.PadRight = pad, pad, pad, pad
	}
	oh, ow := cp.OutSize()
	p.dev.Conv2D(out[:c.out*oh*ow], in[:c.in*h*w], c.w, c.b, cp)
}

// convCur applies a same-padded conv to the current activation, moving it to the next buffer.
func (p *pass) convCur(c conv) {
	p.conv(p.scratch(1), p.bufs[p.cur], c, p.h, p.w, false)
	p.cur = (p.cur + 1) % 3
}

// normAct computes y = silu(GroupNorm(x)) for x [c, hw]; y may alias x.
func (p *pass) normAct(y, x []float32, n groupNorm, c int) {
	hw := p.hw()
	p.dev.GroupNorm(y[:c*hw], x[:c*hw], c, hw, p.v.cfg.NormNumGroups, normEps, n.gamma, n.beta)
	p.dev.SiLU(y[:c*hw], y[:c*hw])
}

// resnet runs a ResnetBlock2D on the current activation.
func (p *pass) resnet(r *resnet) {
	hw := p.hw()
	x := p.bufs[p.cur][:r.in*hw]
	a, b := p.scratch(1), p.scratch(2)
	p.normAct(a, x, r.norm1, r.in)
	p.conv(b, a, r.conv1, p.h, p.w, false)
	p.normAct(b, b, r.norm2, r.out)
	out := a[:r.out*hw]
	p.conv(out, b, r.conv2, p.h, p.w, false)
	res := x
	if r.shortcut != nil {
		res = b[:r.out*hw]
		p.conv(res, x, *r.shortcut, p.h, p.w, false)
	}
	// diffusers: (input_tensor + hidden_states) / output_scale_factor, with the factor 1.
	p.dev.Add(out, res, out)
	p.cur = (p.cur + 1) % 3
}

// attention runs the mid block's one-head self-attention (with residual) on the current
// activation [C, h, w], whose pixels are the tokens, in place.
func (p *pass) attention(a *attention) {
	c, hw := a.channels, p.hw()
	n := c * hw
	x := p.bufs[p.cur][:n]
	// The buffer sizes leave room for two [hw, C] matrices in each scratch buffer.
	s1, s2 := p.scratch(1), p.scratch(2)
	tokens, q := s1[:n], s1[n:2*n]
	k, v := s2[:n], s2[n:2*n]
	// GroupNorm over [C, hw] (the same as on [B, C, H, W]), then tokens [hw, C].
	p.dev.GroupNorm(k, x, c, hw, p.v.cfg.NormNumGroups, normEps, a.norm.gamma, a.norm.beta)
	transpose(p.dev, tokens, k, c, hw)
	p.dev.Linear(q, tokens, hw, a.q.w, a.q.b)
	p.dev.Linear(k, tokens, hw, a.k.w, a.k.b)
	p.dev.Linear(v, tokens, hw, a.v.w, a.v.b)
	p.dev.Attention(tokens, q, k, v, gpu.AttnParams{
		SeqQ: hw, SeqK: hw, Heads: 1, KVHeads: 1, HeadDim: c,
		Scale: float32(1 / math.Sqrt(float64(c))),
	})
	p.dev.Linear(q, tokens, hw, a.o.w, a.o.b)
	// Back to [C, hw] plus the residual; rescale_output_factor is 1.
	addTransposed(p.dev, x, q, c, hw)
}

func (p *pass) mid(m *midBlock) error {
	p.resnet(&m.res0)
	if err := p.step(); err != nil {
		return err
	}
	if m.attn != nil {
		p.attention(m.attn)
		if err := p.step(); err != nil {
			return err
		}
	}
	p.resnet(&m.res1)
	return p.step()
}

func (p *pass) resnets(lv *level) error {
	for i := range lv.resnets {
		p.resnet(&lv.resnets[i])
		if err := p.step(); err != nil {
			return err
		}
	}
	return nil
}

// upsample is Upsample2D: nearest ×2, then a 3×3 conv.
func (p *pass) upsample(c conv) {
	up := p.scratch(1)
	p.dev.UpsampleNearest2x(up[:c.in*4*p.hw()], p.bufs[p.cur][:c.in*p.hw()], c.in, p.h, p.w)
	p.h, p.w = 2*p.h, 2*p.w
	p.conv(p.scratch(2), up, c, p.h, p.w, false)
	p.cur = (p.cur + 2) % 3
}

// downsample is Downsample2D: pad right and bottom by one, 3×3 conv with stride 2.
func (p *pass) downsample(c conv) {
	p.conv(p.scratch(1), p.bufs[p.cur], c, p.h, p.w, true)
	p.h, p.w = (p.h-1)/2+1, (p.w-1)/2+1
	p.cur = (p.cur + 1) % 3
}

// output applies GroupNorm, SiLU and the output conv to the current activation.
func (p *pass) output(n groupNorm, c conv) {
	x := p.bufs[p.cur]
	p.normAct(x, x, n, c.in)
	p.convCur(c)
}

// result copies the current activation [c, h, w] out of the work buffers.
func (p *pass) result(c int) []float32 {
	out := make([]float32, c*p.hw())
	copy(out, p.bufs[p.cur])
	return out
}

// progressSteps is the number of progress reports of a decode or encode pass: conv_in, the
// mid block's two resnets and attention, every resnet and resampler, and the output.
func progressSteps(mid midBlock, levels []level) int {
	total := 2 + 2 // conv_in, output, mid resnets
	if mid.attn != nil {
		total++
	}
	for _, lv := range levels {
		total += len(lv.resnets)
		if lv.resize != nil {
			total++
		}
	}
	return total
}

func (v *VAE) decode(ctx context.Context, latent []float32, h, w int, progress func(done, total int)) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &v.dec
	p := v.newPass(ctx, progress, progressSteps(d.mid, d.levels), v.decodeBufSize(h, w))
	p.h, p.w = h, w
	copy(p.bufs[0], latent)
	if d.postQuant != nil {
		p.convCur(*d.postQuant)
	}
	p.convCur(d.convIn)
	if err := p.step(); err != nil {
		return nil, err
	}
	if err := p.mid(&d.mid); err != nil {
		return nil, err
	}
	for i := range d.levels {
		lv := &d.levels[i]
		if err := p.resnets(lv); err != nil {
			return nil, err
		}
		if lv.resize != nil {
			p.upsample(*lv.resize)
			if err := p.step(); err != nil {
				return nil, err
			}
		}
	}
	p.output(d.normOut, d.convOut)
	if err := p.step(); err != nil {
		return nil, err
	}
	return p.result(d.convOut.out), nil
}

func (v *VAE) encode(ctx context.Context, img []float32, h, w int, progress func(done, total int)) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e := &v.enc
	p := v.newPass(ctx, progress, progressSteps(e.mid, e.levels), v.encodeBufSize(h, w))
	p.h, p.w = h, w
	copy(p.bufs[0], img)
	p.convCur(e.convIn)
	if err := p.step(); err != nil {
		return nil, err
	}
	for i := range e.levels {
		lv := &e.levels[i]
		if err := p.resnets(lv); err != nil {
			return nil, err
		}
		if lv.resize != nil {
			p.downsample(*lv.resize)
			if err := p.step(); err != nil {
				return nil, err
			}
		}
	}
	if err := p.mid(&e.mid); err != nil {
		return nil, err
	}
	p.output(e.normOut, e.convOut)
	lc := v.cfg.LatentChannels
	if e.quant != nil {
		p.convCur(*e.quant)
	}
	if err := p.step(); err != nil {
		return nil, err
	}
	return p.result(lc), nil
}

// decodeBufSize is the largest activation (values) of a decode of an h×w latent.
func (v *VAE) decodeBufSize(h, w int) int {
	d := &v.dec
	hw := h * w
	n := max(v.cfg.LatentChannels, d.convIn.out) * hw
	if d.mid.attn != nil {
		n = max(n, 2*d.mid.attn.channels*hw) // attention scratch
	}
	for _, lv := range d.levels {
		for _, r := range lv.resnets {
			n = max(n, max(r.in, r.out)*hw)
		}
		if lv.resize != nil {
			hw *= 4
			n = max(n, lv.resize.out*hw)
		}
	}
	return max(n, max(d.convOut.in, d.convOut.out)*hw)
}

// encodeBufSize is the largest activation (values) of an encode of an h×w image.
func (v *VAE) encodeBufSize(h, w int) int {
	e := &v.enc
	n := max(e.convIn.in, e.convIn.out) * h * w
	for _, lv := range e.levels {
		for _, r := range lv.resnets {
			n = max(n, max(r.in, r.out)*h*w)
		}
		if lv.resize != nil {
			h, w = (h-1)/2+1, (w-1)/2+1
			n = max(n, lv.resize.out*h*w)
		}
	}
	if e.mid.attn != nil {
		n = max(n, 2*e.mid.attn.channels*h*w) // attention scratch
	}
	return max(n, max(e.convOut.in, e.convOut.out)*h*w)
}

// transposeBlock is the tile side of the blocked transposes.
const transposeBlock = 32

// transpose writes dst [cols, rows] = srcᵀ for src [rows, cols].
func transpose(dev *gpu.Device, dst, src []float32, rows, cols int) {
	dev.Parallel((cols+transposeBlock-1)/transposeBlock, func(lo, hi int) {
		for j0 := lo * transposeBlock; j0 < min(hi*transposeBlock, cols); j0 += transposeBlock {
			j1 := min(j0+transposeBlock, cols)
			for i0 := 0; i0 < rows; i0 += transposeBlock {
				i1 := min(i0+transposeBlock, rows)
				for j := j0; j < j1; j++ {
					d := dst[j*rows : (j+1)*rows]
					for i := i0; i < i1; i++ {
						d[i] = src[i*cols+j]
					}
				}
			}
		}
	})
}

// addTransposed computes x[c, p] += t[p, c] for x [channels, hw] and t [hw, channels].
func addTransposed(dev *gpu.Device, x, t []float32, channels, hw int) {
	dev.Parallel((channels+transposeBlock-1)/transposeBlock, func(lo, hi int) {
		for c0 := lo * transposeBlock; c0 < min(hi*transposeBlock, channels); c0 += transposeBlock {
			c1 := min(c0+transposeBlock, channels)
			for p0 := 0; p0 < hw; p0 += transposeBlock {
				p1 := min(p0+transposeBlock, hw)
				for c := c0; c < c1; c++ {
					row := x[c*hw : (c+1)*hw]
					for q := p0; q < p1; q++ {
						row[q] += t[q*channels+c]
					}
				}
			}
		}
	})
}
