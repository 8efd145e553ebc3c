package vae

import (
	"context"
	"fmt"
	"math"

	"kleinbild/gpu"
)

// normEps is the GroupNorm epsilon of every norm in the VAE (resnets, attention, outputs).
const normEps = 1e-6

// pass is the state of one Encode or Decode: three backend activation tensors of the
// largest activation size that rotate through the blocks (the current activation lives in
// bufs[cur], the other two are scratch), plus cancellation and progress bookkeeping.
// Peak memory is therefore three times the largest activation: for the real decoder the
// 256-channel full-resolution tensor, 3 × 256 MB at 512² and 3 × 1 GB at 1024².
type pass struct {
	v           *VAE
	b           gpu.Backend
	op          string // "vae decode" or "vae encode", for errors
	ctx         context.Context
	progress    func(done, total int)
	done, total int
	bufs        [3]gpu.Tensor
	cur         int
	stop        func() // ends the backend's watch of ctx (gpu.Interrupt)
	h, w        int    // spatial size of the current activation
}

// newPass allocates the pass's buffers; on error nothing stays allocated.
func (v *VAE) newPass(ctx context.Context, op string, progress func(done, total int), total, bufSize int) (*pass, error) {
	p := &pass{v: v, b: v.b, op: op, ctx: ctx, progress: progress, total: total, stop: gpu.Interrupt(ctx, v.b)}
	for i := range p.bufs {
		t, err := v.b.Alloc(gpu.F32, bufSize)
		if err != nil {
			p.free()
			return nil, fmt.Errorf("%s: activations of %d values: %w", op, bufSize, err)
		}
		p.bufs[i] = t
	}
	return p, nil
}

// free releases the buffers and stops watching the pass's context.
func (p *pass) free() {
	p.stop()
	for i, t := range p.bufs {
		p.b.Free(t)
		p.bufs[i] = gpu.Tensor{}
	}
}

// step submits the work of one finished block, reports it and returns the backend's or the
// context's error, if any.
func (p *pass) step() error {
	if err := p.b.Flush(); err != nil {
		return fmt.Errorf("%s: %w", p.op, err)
	}
	p.done++
	if p.progress != nil {
		p.progress(p.done, p.total)
	}
	return p.ctx.Err()
}

func (p *pass) hw() int { return p.h * p.w }

// scratch returns the i-th (1 or 2) buffer after the current one.
func (p *pass) scratch(i int) gpu.Tensor { return p.bufs[(p.cur+i)%3] }

// conv runs c on in [c.in, h, w] into out. stride2 selects the downsampler's stride-2 conv
// after zero padding right and bottom by one; otherwise "same" padding (k/2) is used.
func (p *pass) conv(out, in gpu.Tensor, c conv, h, w int, stride2 bool) {
	cp := gpu.ConvParams{InC: c.in, InH: h, InW: w, KH: c.k, KW: c.k, Stride: 1}
	if stride2 {
		cp.Stride, cp.PadBottom, cp.PadRight = 2, 1, 1
	} else {
		pad := c.k / 2
		cp.PadTop, cp.PadLeft, cp.PadBottom, cp.PadRight = pad, pad, pad, pad
	}
	oh, ow := cp.OutSize()
	p.b.Conv2D(out.Slice(0, c.out*oh*ow), in.Slice(0, c.in*h*w), c.w, c.b, cp)
}

// convCur applies a same-padded conv to the current activation, moving it to the next buffer.
func (p *pass) convCur(c conv) {
	p.conv(p.scratch(1), p.bufs[p.cur], c, p.h, p.w, false)
	p.cur = (p.cur + 1) % 3
}

// normAct computes y = silu(GroupNorm(x)) for x [c, hw] into y, a buffer other than x's.
func (p *pass) normAct(y, x gpu.Tensor, n groupNorm, c int) {
	hw := p.hw()
	y = y.Slice(0, c*hw)
	p.b.GroupNorm(y, x.Slice(0, c*hw), n.gamma, n.beta, c, hw, p.v.cfg.NormNumGroups, normEps)
	p.b.SiLU(y, y)
}

// resnet runs a ResnetBlock2D on the current activation, moving it two buffers on. Every
// kernel reads buffers other than the one it writes (so a device binds its inputs
// read-only), except the residual add, in place.
func (p *pass) resnet(r *resnet) {
	hw := p.hw()
	x := p.bufs[p.cur].Slice(0, r.in*hw)
	a, b := p.scratch(1), p.scratch(2)
	p.normAct(a, x, r.norm1, r.in)
	p.conv(b, a, r.conv1, p.h, p.w, false)
	p.normAct(a, b, r.norm2, r.out)
	out := b.Slice(0, r.out*hw)
	p.conv(out, a, r.conv2, p.h, p.w, false)
	res := x
	if r.shortcut != nil {
		res = a.Slice(0, r.out*hw)
		p.conv(res, x, *r.shortcut, p.h, p.w, false)
	}
	// diffusers: (input_tensor + hidden_states) / output_scale_factor, with the factor 1.
	p.b.Add(out, res, out)
	p.cur = (p.cur + 2) % 3
}

// attention runs the mid block's one-head self-attention (with residual) on the current
// activation [C, h, w], whose pixels are the tokens, in place. The tokens and the attention
// output lie beside x in its buffer, so that no kernel reads the buffer it writes.
func (p *pass) attention(a *attention) {
	c, hw := a.channels, p.hw()
	n := c * hw
	// Every buffer holds two [hw, C] matrices (see ActivationValues).
	x, beside := p.bufs[p.cur].Slice(0, n), p.bufs[p.cur].Slice(n, 2*n)
	s1, s2 := p.scratch(1), p.scratch(2)
	// GroupNorm over [C, hw] (the same as on [B, C, H, W]), then tokens [hw, C].
	normed, tokens := s1.Slice(0, n), beside
	p.b.GroupNorm(normed, x, a.norm.gamma, a.norm.beta, c, hw, p.v.cfg.NormNumGroups, normEps)
	p.b.Transpose(tokens, normed, c, hw)
	q, k, v := s1.Slice(0, n), s1.Slice(n, 2*n), s2.Slice(0, n)
	p.b.Linear(q, tokens, a.q.w, a.q.b, hw)
	p.b.Linear(k, tokens, a.k.w, a.k.b, hw)
	p.b.Linear(v, tokens, a.v.w, a.v.b, hw)
	att := beside
	p.b.Attention(att, q, k, v, gpu.AttnParams{
		SeqQ: hw, SeqK: hw, Heads: 1, KVHeads: 1, HeadDim: c,
		Scale: float32(1 / math.Sqrt(float64(c))),
	})
	proj, back := s1.Slice(0, n), s2.Slice(0, n)
	p.b.Linear(proj, att, a.o.w, a.o.b, hw)
	// Back to [C, hw] plus the residual; rescale_output_factor is 1.
	p.b.Transpose(back, proj, hw, c)
	p.b.Add(x, x, back)
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
	p.b.UpsampleNearest2x(up.Slice(0, c.in*4*p.hw()), p.bufs[p.cur].Slice(0, c.in*p.hw()), c.in, p.h, p.w)
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

// output applies GroupNorm, SiLU and the output conv to the current activation, moving it
// two buffers on.
func (p *pass) output(n groupNorm, c conv) {
	p.normAct(p.scratch(1), p.bufs[p.cur], n, c.in)
	p.conv(p.scratch(2), p.scratch(1), c, p.h, p.w, false)
	p.cur = (p.cur + 2) % 3
}

// result copies the current activation [c, h, w] out of the work buffers into a new
// tensor.
func (p *pass) result(c int) (gpu.Tensor, error) {
	out, err := p.b.Alloc(gpu.F32, c, p.h, p.w)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("%s: output: %w", p.op, err)
	}
	p.b.Copy(out, p.bufs[p.cur].Slice(0, out.Len()))
	if err := p.b.Flush(); err != nil {
		p.b.Free(out)
		return gpu.Tensor{}, fmt.Errorf("%s: %w", p.op, err)
	}
	return out, nil
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

func (v *VAE) decode(ctx context.Context, latent gpu.Tensor, h, w int, progress func(done, total int)) (gpu.Tensor, error) {
	if err := ctx.Err(); err != nil {
		return gpu.Tensor{}, err
	}
	d := &v.dec
	p, err := v.newPass(ctx, "vae decode", progress, progressSteps(d.mid, d.levels), v.decodeBufSize(h, w))
	if err != nil {
		return gpu.Tensor{}, err
	}
	defer p.free()
	p.h, p.w = h, w
	p.b.Copy(p.bufs[0].Slice(0, latent.Len()), latent)
	if d.postQuant != nil {
		p.convCur(*d.postQuant)
	}
	p.convCur(d.convIn)
	if err := p.step(); err != nil {
		return gpu.Tensor{}, err
	}
	if err := p.mid(&d.mid); err != nil {
		return gpu.Tensor{}, err
	}
	for i := range d.levels {
		lv := &d.levels[i]
		if err := p.resnets(lv); err != nil {
			return gpu.Tensor{}, err
		}
		if lv.resize != nil {
			p.upsample(*lv.resize)
			if err := p.step(); err != nil {
				return gpu.Tensor{}, err
			}
		}
	}
	p.output(d.normOut, d.convOut)
	if err := p.step(); err != nil {
		return gpu.Tensor{}, err
	}
	return p.result(d.convOut.out)
}

func (v *VAE) encode(ctx context.Context, img gpu.Tensor, h, w int, progress func(done, total int)) (gpu.Tensor, error) {
	if err := ctx.Err(); err != nil {
		return gpu.Tensor{}, err
	}
	e := &v.enc
	p, err := v.newPass(ctx, "vae encode", progress, progressSteps(e.mid, e.levels), v.encodeBufSize(h, w))
	if err != nil {
		return gpu.Tensor{}, err
	}
	defer p.free()
	p.h, p.w = h, w
	p.b.Copy(p.bufs[0].Slice(0, img.Len()), img)
	p.convCur(e.convIn)
	if err := p.step(); err != nil {
		return gpu.Tensor{}, err
	}
	for i := range e.levels {
		lv := &e.levels[i]
		if err := p.resnets(lv); err != nil {
			return gpu.Tensor{}, err
		}
		if lv.resize != nil {
			p.downsample(*lv.resize)
			if err := p.step(); err != nil {
				return gpu.Tensor{}, err
			}
		}
	}
	if err := p.mid(&e.mid); err != nil {
		return gpu.Tensor{}, err
	}
	p.output(e.normOut, e.convOut)
	lc := v.cfg.LatentChannels
	if e.quant != nil {
		p.convCur(*e.quant)
	}
	if err := p.step(); err != nil {
		return gpu.Tensor{}, err
	}
	return p.result(lc)
}

// decodeBufSize is the largest activation (values) of a decode of an h×w latent.
func (v *VAE) decodeBufSize(h, w int) int {
	return int(ActivationValues(v.cfg.DecodeLayers(h, w)))
}

// encodeBufSize is the largest activation (values) of an encode of an h×w image.
func (v *VAE) encodeBufSize(h, w int) int {
	return int(ActivationValues(v.cfg.EncodeLayers(h, w)))
}
