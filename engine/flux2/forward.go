package flux2

import (
	"context"
	"errors"
	"fmt"
	"math"

	"kleinbild/gpu"
)

// Input is one transformer call (batch 1) on tensors of the model's backend.
type Input struct {
	Img      gpu.Tensor // [N, in_channels] packed latent tokens: target tokens, then reference tokens
	ImgIDs   []int64    // [N·4] position ids (T, H, W, L) of the image tokens (ImageIDs)
	Txt      gpu.Tensor // [L, joint_attention_dim] text embeddings (all tokens, padding included); zero when L = 0
	TxtIDs   []int64    // [L·4] position ids of the text tokens (TextIDs)
	Timestep float32    // what the pipeline passes: scheduler timestep / 1000 (≈ sigma)
}

// HostInput is Input with host slices, for ForwardHost.
type HostInput struct {
	Img      []float32 // [N, in_channels]
	ImgIDs   []int64   // [N·4]
	Txt      []float32 // [L, joint_attention_dim]
	TxtIDs   []int64   // [L·4]
	Timestep float32
}

// checkInput validates the lengths of an input (img and txt values) against the config and
// returns N and L.
func checkInput(c Config, imgLen, txtLen int, imgIDs, txtIDs []int64, timestep float32) (n, l int, err error) {
	if len(imgIDs)%idCols != 0 {
		return 0, 0, fmt.Errorf("flux2: ImgIDs has %d values, not a multiple of %d", len(imgIDs), idCols)
	}
	if len(txtIDs)%idCols != 0 {
		return 0, 0, fmt.Errorf("flux2: TxtIDs has %d values, not a multiple of %d", len(txtIDs), idCols)
	}
	n, l = len(imgIDs)/idCols, len(txtIDs)/idCols
	if n == 0 {
		return 0, 0, errors.New("flux2: no image tokens")
	}
	if imgLen != n*c.InChannels {
		return 0, 0, fmt.Errorf("flux2: Img has %d values, want %d tokens × %d channels = %d", imgLen, n, c.InChannels, n*c.InChannels)
	}
	if txtLen != l*c.JointAttentionDim {
		return 0, 0, fmt.Errorf("flux2: Txt has %d values, want %d tokens × %d = %d", txtLen, l, c.JointAttentionDim, l*c.JointAttentionDim)
	}
	if math.IsNaN(float64(timestep)) || math.IsInf(float64(timestep), 0) {
		return 0, 0, fmt.Errorf("flux2: timestep %v is not finite", timestep)
	}
	return n, l, nil
}

// check validates in and out against the config and returns N and L.
func (in Input) check(c Config, out gpu.Tensor) (n, l int, err error) {
	n, l, err = checkInput(c, in.Img.Len(), in.Txt.Len(), in.ImgIDs, in.TxtIDs, in.Timestep)
	if err != nil {
		return 0, 0, err
	}
	if in.Img.DType() != gpu.F32 || (l > 0 && in.Txt.DType() != gpu.F32) {
		return 0, 0, fmt.Errorf("flux2: Img is %v and Txt %v, want f32", in.Img.DType(), in.Txt.DType())
	}
	if out.DType() != gpu.F32 || out.Len() != n*c.OutChannels {
		return 0, 0, fmt.Errorf("flux2: output %v, want f32 [%d, %d]", out, n, c.OutChannels)
	}
	return n, l, nil
}

// modulation holds the per-call shift/scale/gate vectors (each a [hidden] view of
// buffers.mod).
type modulation struct {
	img, txt [2]modSet // double blocks: attention set, feed-forward set
	single   modSet
	outScale gpu.Tensor // norm_out: (scale, shift) order
	outShift gpu.Tensor
}

type modSet struct{ shift, scale, gate gpu.Tensor }

func splitSet(v gpu.Tensor, d int) modSet {
	return modSet{shift: v.Slice(0, d), scale: v.Slice(d, 2*d), gate: v.Slice(2*d, 3*d)}
}

// buffers are the per-call activations, each its own tensor (so its own device buffer): the
// operands a kernel only reads then never share a buffer with the one it writes, and a device
// binds them read-only (WebGPU may not bind one buffer both read-only and writable in a
// dispatch). Only ops that work in place by design (HeadRMSNorm, RoPE, the residual adds, a
// SiLU) read and write one buffer.
type buffers struct {
	h     gpu.Tensor // [S, d] joint hidden state: text rows, then image rows
	nrm   gpu.Tensor // [S, d] modulated LayerNorm output
	big   gpu.Tensor // [S, 3d + 2·mlp] q, k, v (double) / fused projection (single) / FF input
	mid   gpu.Tensor // [S, d + mlp] attention output / FF activation / single-block concat
	tmp   gpu.Tensor // [S, d] output projections
	cos   gpu.Tensor // [S, headDim] rotary tables
	sin   gpu.Tensor
	tproj gpu.Tensor // [timestep_guidance_channels] sinusoidal timestep embedding
	th    gpu.Tensor // [d] timestep MLP hidden
	temb  gpu.Tensor // [d] timestep embedding
	st    gpu.Tensor // [d] SiLU(temb)
	mod   gpu.Tensor // [17·d] modulation vectors: img 6d, txt 6d, single 3d, norm_out 2d
}

// numBuffers is the number of fields of buffers.
const numBuffers = 12

// layout returns the sizes of the buffers fields, in order.
func layout(c Config, s int) [numBuffers]int {
	d, mlp, hd := c.Hidden(), c.MLPHidden(), c.AttentionHeadDim
	return [numBuffers]int{s * d, s * d, s * (3*d + 2*mlp), s * (d + mlp), s * d, s * hd, s * hd,
		c.TimestepGuidanceChannels, d, d, d, 17 * d}
}

// carve returns the buffers of sizes, the first sizes[i] elements of act[i].
func carve(act *[numBuffers]gpu.Tensor, sizes [numBuffers]int) buffers {
	var v [numBuffers]gpu.Tensor
	for i, z := range sizes {
		v[i] = act[i].Slice(0, z)
	}
	return buffers{h: v[0], nrm: v[1], big: v[2], mid: v[3], tmp: v[4], cos: v[5], sin: v[6],
		tproj: v[7], th: v[8], temb: v[9], st: v[10], mod: v[11]}
}

// ForwardHost runs Forward on host slices: it uploads the input to the model's backend and
// returns the output [N, out_channels] read back. For tests and simple callers.
func (m *Model) ForwardHost(ctx context.Context, in HostInput, progress func(block, total int)) ([]float32, error) {
	c := m.cfg
	n, l, err := checkInput(c, len(in.Img), len(in.Txt), in.ImgIDs, in.TxtIDs, in.Timestep)
	if err != nil {
		return nil, err
	}
	b := m.b
	dev := Input{ImgIDs: in.ImgIDs, TxtIDs: in.TxtIDs, Timestep: in.Timestep}
	if dev.Img, err = gpu.FromHost(b, in.Img, n, c.InChannels); err != nil {
		return nil, fmt.Errorf("flux2: upload image tokens: %w", err)
	}
	defer b.Free(dev.Img)
	if l > 0 {
		if dev.Txt, err = gpu.FromHost(b, in.Txt, l, c.JointAttentionDim); err != nil {
			return nil, fmt.Errorf("flux2: upload text embeddings: %w", err)
		}
		defer b.Free(dev.Txt)
	}
	out, err := b.Alloc(gpu.F32, n, c.OutChannels)
	if err != nil {
		return nil, fmt.Errorf("flux2: output: %w", err)
	}
	defer b.Free(out)
	if err := m.Forward(ctx, dev, out, progress); err != nil {
		return nil, err
	}
	v, err := gpu.ToHost(b, out)
	if err != nil {
		return nil, fmt.Errorf("flux2: read output: %w", err)
	}
	return v, nil
}

// Forward runs the transformer on one input and writes the predicted velocity
// [N, out_channels] for every image token (reference tokens included: the caller keeps the
// first rows, the target tokens) into out, a tensor of the model's backend. The work may
// still be queued when Forward returns: read out (or Sync) to wait for it. progress, if
// non-nil, is called after each block has been enqueued with the number of blocks done and
// the total. ctx and the backend's errors are checked before every block; cancellation
// returns an error wrapping ctx.Err().
func (m *Model) Forward(ctx context.Context, in Input, out gpu.Tensor, progress func(block, total int)) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.ckpt == nil {
		return errors.New("flux2: Forward on a closed model")
	}
	c := m.cfg
	n, l, err := in.check(c, out)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("flux2: before the first block: %w", err)
	}
	defer gpu.Interrupt(ctx, m.b)() // a cancel stops a long op part-way (CPU backends)
	dev := m.b
	s, d := l+n, c.Hidden()
	eps := float32(c.Eps)

	sizes := layout(c, s)
	act, err := m.activations(sizes)
	if err != nil {
		return fmt.Errorf("flux2: activations: %w", err)
	}
	defer m.keep(act)
	b := carve(act, sizes)
	if err := m.ad.Prepare(s); err != nil {
		return fmt.Errorf("flux2: %w", err)
	}

	// Timestep embedding and all modulation vectors, once per call.
	mod, err := m.modulations(&b, in.Timestep)
	if err != nil {
		return err
	}

	// Input projections into the joint stream [text; image].
	txt, img := b.h.Slice(0, l*d), b.h.From(l*d)
	if l > 0 {
		m.linear(txt, in.Txt, m.ctxEmbed, l, "", "context_embedder")
	}
	m.linear(img, in.Img, m.xEmbed, n, "", "x_embedder")
	if err := m.emit(traced{"context_embedder", txt}, traced{"x_embedder", img}); err != nil {
		return err
	}

	// Rotary tables for [text; image] positions, built on the host.
	ids := make([]int64, 0, s*idCols)
	ids = append(append(ids, in.TxtIDs...), in.ImgIDs...)
	cos := make([]float32, b.cos.Len())
	sin := make([]float32, b.sin.Len())
	ropeTables(cos, sin, ids, c.AxesDimsRope, c.RopeTheta)
	dev.Upload(b.cos, cos)
	dev.Upload(b.sin, sin)
	if err := m.emit(traced{"rope_cos", b.cos}, traced{"rope_sin", b.sin}); err != nil {
		return err
	}

	blocks := c.Blocks()
	for i := range m.double {
		if err := m.beforeBlock(ctx, "double", i); err != nil {
			return err
		}
		m.doubleBlock(&m.double[i], &b, &mod, l, n, eps)
		if m.trace != nil {
			if err := m.emit(traced{fmt.Sprintf("transformer_blocks.%d.out0", i), txt},
				traced{fmt.Sprintf("transformer_blocks.%d.out1", i), img}); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(i+1, blocks)
		}
	}
	for i := range m.single {
		if err := m.beforeBlock(ctx, "single", i); err != nil {
			return err
		}
		m.singleBlock(&m.single[i], &b, &mod, s, eps)
		if m.trace != nil {
			if err := m.emit(traced{fmt.Sprintf("single_transformer_blocks.%d", i), b.h}); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(len(m.double)+i+1, blocks)
		}
	}

	// Output: AdaLayerNormContinuous on the image rows, then proj_out.
	nrm := b.nrm.Slice(0, n*d)
	dev.LayerNorm(nrm, img, mod.outScale, mod.outShift, n, d, eps)
	m.linear(out, nrm, m.projOut, n, "", "proj_out")
	if err := m.emit(traced{"norm_out", nrm}, traced{"proj_out", out}); err != nil {
		return err
	}
	if err := dev.Flush(); err != nil {
		return fmt.Errorf("flux2: output: %w", err)
	}
	return nil
}

// beforeBlock is the cancellation and error point before block i of the given kind.
func (m *Model) beforeBlock(ctx context.Context, kind string, i int) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("flux2: before %s block %d: %w", kind, i, err)
	}
	if err := m.b.Flush(); err != nil {
		return fmt.Errorf("flux2: before %s block %d: %w", kind, i, err)
	}
	return nil
}

// traced is one named intermediate for the trace hook.
type traced struct {
	name string
	t    gpu.Tensor
}

// emit passes intermediates to the test hooks: mark gets the names, trace the tensors read
// back. Without hooks it does nothing.
func (m *Model) emit(ts ...traced) error {
	for _, x := range ts {
		if m.mark != nil {
			m.mark(x.name)
		}
		if m.trace == nil {
			continue
		}
		v, err := gpu.ToHost(m.b, x.t)
		if err != nil {
			return fmt.Errorf("flux2: trace %s: %w", x.name, err)
		}
		m.trace(x.name, v)
	}
	return nil
}

// modulations computes the timestep embedding (Flux2TimestepGuidanceEmbeddings without
// guidance: the timestep scaled by 1000 in float32, embedded sinusoidally on the host, then
// linear_1 → SiLU → linear_2), every Flux2Modulation and the norm_out linear from SiLU(temb).
func (m *Model) modulations(b *buffers, t float32) (modulation, error) {
	c, dev := m.cfg, m.b
	d := c.Hidden()
	dev.Upload(b.tproj, timestepEmbedding(t*1000, c.TimestepGuidanceChannels))
	m.linear(b.th, b.tproj, m.timeLin1, 1, "", "time_guidance_embed.timestep_embedder.linear_1")
	dev.SiLU(b.th, b.th)
	m.linear(b.temb, b.th, m.timeLin2, 1, "", "time_guidance_embed.timestep_embedder.linear_2")
	dev.SiLU(b.st, b.temb)

	img, txt := b.mod.Slice(0, 6*d), b.mod.Slice(6*d, 12*d)
	single, out := b.mod.Slice(12*d, 15*d), b.mod.Slice(15*d, 17*d)
	m.linear(img, b.st, m.modImg, 1, "", "double_stream_modulation_img.linear")
	m.linear(txt, b.st, m.modTxt, 1, "", "double_stream_modulation_txt.linear")
	m.linear(single, b.st, m.modSingl, 1, "", "single_stream_modulation.linear")
	m.linear(out, b.st, m.normOut, 1, "", "norm_out.linear")
	if err := m.emit(traced{"time_guidance_embed", b.temb}, traced{"double_stream_modulation_img", img},
		traced{"double_stream_modulation_txt", txt}, traced{"single_stream_modulation", single}); err != nil {
		return modulation{}, err
	}
	return modulation{
		img:      [2]modSet{splitSet(img, d), splitSet(img.From(3*d), d)},
		txt:      [2]modSet{splitSet(txt, d), splitSet(txt.From(3*d), d)},
		single:   splitSet(single, d),
		outScale: out.Slice(0, d),
		outShift: out.Slice(d, 2*d),
	}, nil
}

// doubleBlock is Flux2TransformerBlock: text and image streams with their own weights and
// modulations, joint attention over [text; image].
func (m *Model) doubleBlock(w *doubleBlock, b *buffers, mod *modulation, l, n int, eps float32) {
	dev, c := m.b, m.cfg
	s, d, mlp, hd, heads := l+n, c.Hidden(), c.MLPHidden(), c.AttentionHeadDim, c.NumAttentionHeads
	ld, sd := l*d, s*d
	txt, img := b.h.Slice(0, ld), b.h.Slice(ld, sd)
	txtN, imgN := b.nrm.Slice(0, ld), b.nrm.Slice(ld, sd)
	tmpT, tmpI := b.tmp.Slice(0, ld), b.tmp.Slice(ld, sd)

	// Attention.
	dev.LayerNorm(txtN, txt, mod.txt[0].scale, mod.txt[0].shift, l, d, eps)
	dev.LayerNorm(imgN, img, mod.img[0].scale, mod.img[0].shift, n, d, eps)
	q, k, v := b.big.Slice(0, sd), b.big.Slice(sd, 2*sd), b.big.Slice(2*sd, 3*sd)
	m.linear(q.Slice(0, ld), txtN, w.addQ, l, w.prefix, "attn.add_q_proj")
	m.linear(k.Slice(0, ld), txtN, w.addK, l, w.prefix, "attn.add_k_proj")
	m.linear(v.Slice(0, ld), txtN, w.addV, l, w.prefix, "attn.add_v_proj")
	m.linear(q.From(ld), imgN, w.toQ, n, w.prefix, "attn.to_q")
	m.linear(k.From(ld), imgN, w.toK, n, w.prefix, "attn.to_k")
	m.linear(v.From(ld), imgN, w.toV, n, w.prefix, "attn.to_v")
	dev.HeadRMSNorm(q.Slice(0, ld), w.normAddQ, l, d, heads, hd, eps)
	dev.HeadRMSNorm(k.Slice(0, ld), w.normAddK, l, d, heads, hd, eps)
	dev.HeadRMSNorm(q.From(ld), w.normQ, n, d, heads, hd, eps)
	dev.HeadRMSNorm(k.From(ld), w.normK, n, d, heads, hd, eps)
	dev.RoPE(q, b.cos, b.sin, s, heads, hd, d, true)
	dev.RoPE(k, b.cos, b.sin, s, heads, hd, d, true)
	att := b.mid.Slice(0, sd)
	dev.Attention(att, q, k, v, m.attnParams(s, d, d, d))
	m.linear(tmpT, att.Slice(0, ld), w.toAddOut, l, w.prefix, "attn.to_add_out")
	m.linear(tmpI, att.From(ld), w.toOut, n, w.prefix, "attn.to_out.0")
	dev.GatedAdd(txt, tmpT, mod.txt[0].gate, l, d)
	dev.GatedAdd(img, tmpI, mod.img[0].gate, n, d)

	// Feed-forward (SwiGLU) per stream.
	dev.LayerNorm(txtN, txt, mod.txt[1].scale, mod.txt[1].shift, l, d, eps)
	dev.LayerNorm(imgN, img, mod.img[1].scale, mod.img[1].shift, n, d, eps)
	lm := l * 2 * mlp
	ffIn, act := b.big.Slice(0, s*2*mlp), b.mid.Slice(0, s*mlp)
	m.linear(ffIn.Slice(0, lm), txtN, w.ffCtxIn, l, w.prefix, "ff_context.linear_in")
	m.linear(ffIn.From(lm), imgN, w.ffIn, n, w.prefix, "ff.linear_in")
	dev.SwiGLU(act, ffIn, s, mlp, 0, 0)
	m.linear(tmpT, act.Slice(0, l*mlp), w.ffCtxOut, l, w.prefix, "ff_context.linear_out")
	m.linear(tmpI, act.From(l*mlp), w.ffOut, n, w.prefix, "ff.linear_out")
	dev.GatedAdd(txt, tmpT, mod.txt[1].gate, l, d)
	dev.GatedAdd(img, tmpI, mod.img[1].gate, n, d)
}

// singleBlock is Flux2SingleTransformerBlock: one fused projection to [q | k | v | mlp_in],
// attention and SwiGLU in parallel, one fused output projection of [attn | mlp].
func (m *Model) singleBlock(w *singleBlock, b *buffers, mod *modulation, s int, eps float32) {
	dev, c := m.b, m.cfg
	d, mlp, hd, heads := c.Hidden(), c.MLPHidden(), c.AttentionHeadDim, c.NumAttentionHeads
	pw, cw := 3*d+2*mlp, d+mlp

	dev.LayerNorm(b.nrm, b.h, mod.single.scale, mod.single.shift, s, d, eps)
	p := b.big.Slice(0, s*pw)
	m.linear(p, b.nrm, w.qkvMLP, s, w.prefix, "attn.to_qkv_mlp_proj")
	dev.HeadRMSNorm(p, w.normQ, s, pw, heads, hd, eps)
	dev.HeadRMSNorm(p.From(d), w.normK, s, pw, heads, hd, eps)
	dev.RoPE(p, b.cos, b.sin, s, heads, hd, pw, true)
	dev.RoPE(p.From(d), b.cos, b.sin, s, heads, hd, pw, true)
	cat := b.mid.Slice(0, s*cw)
	dev.Attention(cat, p, p.From(d), p.From(2*d), m.attnParams(s, pw, pw, cw))
	dev.SwiGLU(cat.From(d), p.From(3*d), s, mlp, pw, cw)
	m.linear(b.tmp, cat, w.out, s, w.prefix, "attn.to_out")
	dev.GatedAdd(b.h, b.tmp, mod.single.gate, s, d)
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
