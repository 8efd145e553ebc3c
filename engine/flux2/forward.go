package flux2

import (
	"context"
	"errors"
	"fmt"
	"math"

	"kleinbild/gpu"
)

// Input is one transformer call (batch 1).
type Input struct {
	Img      []float32 // [N, in_channels] packed latent tokens: target tokens, then reference tokens
	ImgIDs   []int64   // [N·4] position ids (T, H, W, L) of the image tokens (ImageIDs)
	Txt      []float32 // [L, joint_attention_dim] text embeddings (all tokens, padding included)
	TxtIDs   []int64   // [L·4] position ids of the text tokens (TextIDs)
	Timestep float32   // what the pipeline passes: scheduler timestep / 1000 (≈ sigma)
}

// check validates the lengths of in against the config and returns N and L.
func (in Input) check(c Config) (n, l int, err error) {
	if len(in.ImgIDs)%idCols != 0 {
		return 0, 0, fmt.Errorf("flux2: ImgIDs has %d values, not a multiple of %d", len(in.ImgIDs), idCols)
	}
	if len(in.TxtIDs)%idCols != 0 {
		return 0, 0, fmt.Errorf("flux2: TxtIDs has %d values, not a multiple of %d", len(in.TxtIDs), idCols)
	}
	n, l = len(in.ImgIDs)/idCols, len(in.TxtIDs)/idCols
	if n == 0 {
		return 0, 0, errors.New("flux2: no image tokens")
	}
	if len(in.Img) != n*c.InChannels {
		return 0, 0, fmt.Errorf("flux2: Img has %d values, want %d tokens × %d channels = %d", len(in.Img), n, c.InChannels, n*c.InChannels)
	}
	if len(in.Txt) != l*c.JointAttentionDim {
		return 0, 0, fmt.Errorf("flux2: Txt has %d values, want %d tokens × %d = %d", len(in.Txt), l, c.JointAttentionDim, l*c.JointAttentionDim)
	}
	if math.IsNaN(float64(in.Timestep)) || math.IsInf(float64(in.Timestep), 0) {
		return 0, 0, fmt.Errorf("flux2: timestep %v is not finite", in.Timestep)
	}
	return n, l, nil
}

// modulation holds the per-call shift/scale/gate vectors (each [hidden]).
type modulation struct {
	img, txt [2]modSet // double blocks: attention set, feed-forward set
	single   modSet
	outScale []float32 // norm_out: (scale, shift) order
	outShift []float32
}

type modSet struct{ shift, scale, gate []float32 }

func splitSet(v []float32, d int) modSet {
	return modSet{shift: v[:d], scale: v[d : 2*d], gate: v[2*d : 3*d]}
}

// buffers are the per-call activations, carved from one scratch allocation.
type buffers struct {
	h   []float32 // [S, d] joint hidden state: text rows, then image rows
	nrm []float32 // [S, d] modulated LayerNorm output
	big []float32 // [S, 3d + 2·mlp] q, k, v (double) / fused projection (single) / FF input
	mid []float32 // [S, d + mlp] attention output / FF activation / single-block concat
	tmp []float32 // [S, d] output projections
	cos []float32 // [S, headDim] rotary tables
	sin []float32
}

func bufferSizes(s, d, mlp, hd int) []int {
	return []int{s * d, s * d, s * (3*d + 2*mlp), s * (d + mlp), s * d, s * hd, s * hd}
}

// Forward runs the transformer on one input and returns the predicted velocity
// [N, out_channels] for every image token (reference tokens included: the caller keeps the
// first rows, the target tokens). progress, if non-nil, is called after each block with the
// number of blocks done and the total. ctx is checked before every block; cancellation returns
// an error wrapping ctx.Err().
func (m *Model) Forward(ctx context.Context, in Input, progress func(block, total int)) ([]float32, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.ckpt == nil {
		return nil, errors.New("flux2: Forward on a closed model")
	}
	c := m.cfg
	n, l, err := in.check(c)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("flux2: before the first block: %w", err)
	}
	dev := m.dev
	s, d, mlp, hd := l+n, c.Hidden(), c.MLPHidden(), c.AttentionHeadDim
	eps := float32(c.Eps)

	sizes := bufferSizes(s, d, mlp, hd)
	total := 0
	for _, z := range sizes {
		total += z
	}
	ws := m.scratch(total)
	defer m.keep(ws)
	var bufs [7][]float32
	rest := ws
	for i, z := range sizes {
		bufs[i], rest = rest[:z:z], rest[z:]
	}
	b := buffers{h: bufs[0], nrm: bufs[1], big: bufs[2], mid: bufs[3], tmp: bufs[4], cos: bufs[5], sin: bufs[6]}

	// Timestep embedding and all modulation vectors, once per call.
	temb := m.timeEmbed(in.Timestep)
	mod := m.modulations(temb)

	// Input projections into the joint stream [text; image].
	dev.Linear(b.h[:l*d], in.Txt, l, m.ctxEmbed, nil)
	dev.Linear(b.h[l*d:], in.Img, n, m.xEmbed, nil)
	m.emit("context_embedder", b.h[:l*d])
	m.emit("x_embedder", b.h[l*d:])

	// Rotary tables for [text; image] positions.
	ids := make([]int64, 0, s*idCols)
	ids = append(append(ids, in.TxtIDs...), in.ImgIDs...)
	ropeTables(b.cos, b.sin, ids, c.AxesDimsRope, c.RopeTheta)
	m.emit("rope_cos", b.cos)
	m.emit("rope_sin", b.sin)

	blocks := c.Blocks()
	for i := range m.double {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("flux2: before double block %d: %w", i, err)
		}
		m.doubleBlock(&m.double[i], &b, &mod, l, n, eps)
		if m.trace != nil {
			m.emit(fmt.Sprintf("transformer_blocks.%d.out0", i), b.h[:l*d])
			m.emit(fmt.Sprintf("transformer_blocks.%d.out1", i), b.h[l*d:])
		}
		if progress != nil {
			progress(i+1, blocks)
		}
	}
	for i := range m.single {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("flux2: before single block %d: %w", i, err)
		}
		m.singleBlock(&m.single[i], &b, &mod, s, eps)
		if m.trace != nil {
			m.emit(fmt.Sprintf("single_transformer_blocks.%d", i), b.h)
		}
		if progress != nil {
			progress(len(m.double)+i+1, blocks)
		}
	}

	// Output: AdaLayerNormContinuous on the image rows, then proj_out.
	img := b.h[l*d:]
	modNorm(dev, b.nrm[:n*d], img, n, d, eps, mod.outShift, mod.outScale)
	m.emit("norm_out", b.nrm[:n*d])
	out := make([]float32, n*c.OutChannels)
	dev.Linear(out, b.nrm[:n*d], n, m.projOut, nil)
	m.emit("proj_out", out)
	return out, nil
}

func (m *Model) emit(name string, v []float32) {
	if m.trace != nil {
		m.trace(name, v)
	}
}

// timeEmbed is Flux2TimestepGuidanceEmbeddings without guidance: the timestep is scaled by
// 1000 in float32, embedded sinusoidally, then linear_1 → SiLU → linear_2.
func (m *Model) timeEmbed(t float32) []float32 {
	d := m.cfg.Hidden()
	proj := timestepEmbedding(t*1000, m.cfg.TimestepGuidanceChannels)
	h := make([]float32, d)
	m.dev.Linear(h, proj, 1, m.timeLin1, nil)
	temb := make([]float32, d)
	m.dev.Linear(temb, silu(h), 1, m.timeLin2, nil)
	m.emit("time_guidance_embed", temb)
	return temb
}

// modulations computes every Flux2Modulation and the norm_out linear from SiLU(temb).
func (m *Model) modulations(temb []float32) modulation {
	d := m.cfg.Hidden()
	st := silu(temb)
	lin := func(w gpu.Weight) []float32 {
		v := make([]float32, w.Out)
		m.dev.Linear(v, st, 1, w, nil)
		return v
	}
	img, txt, single, out := lin(m.modImg), lin(m.modTxt), lin(m.modSingl), lin(m.normOut)
	m.emit("double_stream_modulation_img", img)
	m.emit("double_stream_modulation_txt", txt)
	m.emit("single_stream_modulation", single)
	return modulation{
		img:      [2]modSet{splitSet(img, d), splitSet(img[3*d:], d)},
		txt:      [2]modSet{splitSet(txt, d), splitSet(txt[3*d:], d)},
		single:   splitSet(single, d),
		outScale: out[:d],
		outShift: out[d : 2*d],
	}
}

// doubleBlock is Flux2TransformerBlock: text and image streams with their own weights and
// modulations, joint attention over [text; image].
func (m *Model) doubleBlock(w *doubleBlock, b *buffers, mod *modulation, l, n int, eps float32) {
	dev, c := m.dev, m.cfg
	s, d, mlp, hd, heads := l+n, c.Hidden(), c.MLPHidden(), c.AttentionHeadDim, c.NumAttentionHeads
	ld := l * d
	txt, img := b.h[:ld], b.h[ld:s*d]
	txtN, imgN := b.nrm[:ld], b.nrm[ld:s*d]

	// Attention.
	modNorm(dev, txtN, txt, l, d, eps, mod.txt[0].shift, mod.txt[0].scale)
	modNorm(dev, imgN, img, n, d, eps, mod.img[0].shift, mod.img[0].scale)
	q, k, v := b.big[:s*d], b.big[s*d:2*s*d], b.big[2*s*d:3*s*d]
	dev.Linear(q[:ld], txtN, l, w.addQ, nil)
	dev.Linear(k[:ld], txtN, l, w.addK, nil)
	dev.Linear(v[:ld], txtN, l, w.addV, nil)
	dev.Linear(q[ld:], imgN, n, w.toQ, nil)
	dev.Linear(k[ld:], imgN, n, w.toK, nil)
	dev.Linear(v[ld:], imgN, n, w.toV, nil)
	rmsNormHeads(dev, q[:ld], l, d, heads, hd, eps, w.normAddQ)
	rmsNormHeads(dev, k[:ld], l, d, heads, hd, eps, w.normAddK)
	rmsNormHeads(dev, q[ld:], n, d, heads, hd, eps, w.normQ)
	rmsNormHeads(dev, k[ld:], n, d, heads, hd, eps, w.normK)
	dev.RoPE(q, s, heads, hd, d, b.cos, b.sin, true)
	dev.RoPE(k, s, heads, hd, d, b.cos, b.sin, true)
	att := b.mid[:s*d]
	dev.Attention(att, q, k, v, m.attnParams(s, d, d, d))
	dev.Linear(b.tmp[:ld], att[:ld], l, w.toAddOut, nil)
	dev.Linear(b.tmp[ld:s*d], att[ld:], n, w.toOut, nil)
	gatedAdd(dev, txt, b.tmp[:ld], l, d, mod.txt[0].gate)
	gatedAdd(dev, img, b.tmp[ld:s*d], n, d, mod.img[0].gate)

	// Feed-forward (SwiGLU) per stream.
	modNorm(dev, txtN, txt, l, d, eps, mod.txt[1].shift, mod.txt[1].scale)
	modNorm(dev, imgN, img, n, d, eps, mod.img[1].shift, mod.img[1].scale)
	ffIn, act := b.big[:s*2*mlp], b.mid[:s*mlp]
	dev.Linear(ffIn[:l*2*mlp], txtN, l, w.ffCtxIn, nil)
	dev.Linear(ffIn[l*2*mlp:], imgN, n, w.ffIn, nil)
	dev.SwiGLU(act, ffIn, s, mlp)
	dev.Linear(b.tmp[:ld], act[:l*mlp], l, w.ffCtxOut, nil)
	dev.Linear(b.tmp[ld:s*d], act[l*mlp:], n, w.ffOut, nil)
	gatedAdd(dev, txt, b.tmp[:ld], l, d, mod.txt[1].gate)
	gatedAdd(dev, img, b.tmp[ld:s*d], n, d, mod.img[1].gate)
}

// singleBlock is Flux2SingleTransformerBlock: one fused projection to [q | k | v | mlp_in],
// attention and SwiGLU in parallel, one fused output projection of [attn | mlp].
func (m *Model) singleBlock(w *singleBlock, b *buffers, mod *modulation, s int, eps float32) {
	dev, c := m.dev, m.cfg
	d, mlp, hd, heads := c.Hidden(), c.MLPHidden(), c.AttentionHeadDim, c.NumAttentionHeads
	pw, cw := 3*d+2*mlp, d+mlp

	modNorm(dev, b.nrm, b.h, s, d, eps, mod.single.shift, mod.single.scale)
	p := b.big[:s*pw]
	dev.Linear(p, b.nrm, s, w.qkvMLP, nil)
	rmsNormHeads(dev, p, s, pw, heads, hd, eps, w.normQ)
	rmsNormHeads(dev, p[d:], s, pw, heads, hd, eps, w.normK)
	dev.RoPE(p, s, heads, hd, pw, b.cos, b.sin, true)
	dev.RoPE(p[d:], s, heads, hd, pw, b.cos, b.sin, true)
	cat := b.mid[:s*cw]
	dev.Attention(cat, p, p[d:], p[2*d:], m.attnParams(s, pw, pw, cw))
	swiGLUStrided(dev, cat[d:], p[3*d:], s, mlp, pw, cw)
	dev.Linear(b.tmp, cat, s, w.out, nil)
	gatedAdd(dev, b.h, b.tmp, s, d, mod.single.gate)
}

// attnParams describes the unmasked joint self-attention over s tokens with the given row
// strides of q/k/v and of the output.
func (m *Model) attnParams(s, qkvStride, vStride, outStride int) gpu.AttnParams {
	c := m.cfg
	return gpu.AttnParams{
		SeqQ: s, SeqK: s,
		Heads: c.NumAttentionHeads, KVHeads: c.NumAttentionHeads, HeadDim: c.AttentionHeadDim,
		QStride: qkvStride, KStride: qkvStride, VStride: vStride, OutStride: outStride,
		Scale: float32(1 / math.Sqrt(float64(c.AttentionHeadDim))),
	}
}
