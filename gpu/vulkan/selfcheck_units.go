//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"kleinbild/gpu"
)

// unitCheck is a gpu.KernelCheck under construction (compare fills it).
type unitCheck gpu.KernelCheck

// convCheckShapes are the convolutions of SelfCheck: ragged tiles, then the VAE's 3×3 convs
// at 128 and 512 channels and its stride-2 one.
var convCheckShapes = []struct {
	outC int
	p    gpu.ConvParams
}{
	{7, gpu.ConvParams{InC: 3, InH: 13, InW: 9, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
	{128, gpu.ConvParams{InC: 128, InH: 64, InW: 64, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
	{512, gpu.ConvParams{InC: 512, InH: 32, InW: 48, KH: 3, KW: 3, Stride: 1, PadTop: 1, PadLeft: 1, PadBottom: 1, PadRight: 1}},
	{256, gpu.ConvParams{InC: 256, InH: 65, InW: 33, KH: 3, KW: 3, Stride: 2, PadBottom: 1, PadRight: 1}},
}

// attnCheckShapes are the attentions of SelfCheck: ragged tiles, a causal grouped-query one
// (Qwen3's), and FLUX's joint attention at head dim 128.
var attnCheckShapes = []gpu.AttnParams{
	{SeqQ: 5, SeqK: 7, Heads: 1, HeadDim: 40},
	{SeqQ: 77, SeqK: 77, Heads: 16, KVHeads: 8, HeadDim: 128, Causal: true},
	{SeqQ: 1100, SeqK: 1100, Heads: 24, HeadDim: 128},
}

// attnCheckTol bounds the attention kernels' difference: the same float16 tiles, but a
// softmax weight computed from a score summed in another order may round to the
// neighbouring float16 (a relative step of 2⁻¹¹ on that weight).
const attnCheckTol = 5e-4

// selfCheckUnits compares convcm with convf16 on convCheckShapes and, where the device's
// shape fits it, attncm with attnf16 on attnCheckShapes.
func (b *Backend) selfCheckUnits() ([]gpu.KernelCheck, error) {
	var out []gpu.KernelCheck
	for _, s := range convCheckShapes {
		c, err := b.checkConv("convcm", "convf16", s.outC, s.p)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	if b.fastAttnKernel() != "attncm" {
		return out, nil
	}
	for _, p := range attnCheckShapes {
		c, err := b.checkAttention("attncm", "attnf16", p)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// checkConv runs the fast Conv2D with kernel and with twin on random operands (bf16 weights,
// the first channel scaled by 1e4 as the VAE's activations are) and compares them.
func (b *Backend) checkConv(kernel, twin string, outC int, p gpu.ConvParams) (gpu.KernelCheck, error) {
	oh, ow := p.OutSize()
	k := p.InC * p.KH * p.KW
	c := unitCheck{Kernel: kernel, Twin: twin, Tol: selfCheckTol,
		Shape: fmt.Sprintf("in=%d×%d×%d out=%d kernel=%d×%d stride=%d", p.InC, p.InH, p.InW, outC, p.KH, p.KW, p.Stride)}
	r := rand.New(rand.NewPCG(uint64(outC), uint64(k)))
	img := make([]float32, p.InC*p.InH*p.InW)
	for i := range img {
		img[i] = float32(r.NormFloat64())
		if i < p.InH*p.InW {
			img[i] *= 1e4
		}
	}
	bits := make([]uint16, outC*k)
	for i := range bits {
		bits[i] = uint16(math.Float32bits(float32(r.NormFloat64()/math.Sqrt(float64(k)))) >> 16)
	}
	h := gpu.Held{B: b}
	defer h.Free()
	x := h.Keep(gpu.FromHost(b, img, p.InC, p.InH, p.InW))
	w := h.Keep(b.WeightBF16(bits, outC, k))
	y := h.Keep(b.Alloc(gpu.F32, outC, oh*ow))
	if h.Err != nil {
		return gpu.KernelCheck(c), h.Err
	}
	run := func() { b.Conv2D(y, x, w, gpu.Tensor{}, p) }
	got, err := b.forced(kernel, y, run)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	want, err := b.forced(twin, y, run)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	c.compare(got, want)
	return gpu.KernelCheck(c), nil
}

// checkAttention runs the fast attention with kernel and with twin on random q, k, v (one
// key's values scaled by 1e3) and compares them.
func (b *Backend) checkAttention(kernel, twin string, p gpu.AttnParams) (gpu.KernelCheck, error) {
	pd := p.WithDefaults()
	c := unitCheck{Kernel: kernel, Twin: twin, Tol: attnCheckTol,
		Shape: fmt.Sprintf("seq=%d×%d heads=%d:%d dim=%d causal=%v", pd.SeqQ, pd.SeqK, pd.Heads, pd.KVHeads, pd.HeadDim, pd.Causal)}
	r := rand.New(rand.NewPCG(uint64(pd.SeqQ), uint64(pd.Heads*pd.HeadDim)))
	randn := func(n int, s float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * s)
		}
		return x
	}
	qw, kw := pd.Heads*pd.HeadDim, pd.KVHeads*pd.HeadDim
	vh := randn(pd.SeqK*kw, 1)
	for i := range kw {
		vh[i] *= 1e3
	}
	h := gpu.Held{B: b}
	defer h.Free()
	q := h.Keep(gpu.FromHost(b, randn(pd.SeqQ*qw, 1.5), pd.SeqQ, qw))
	k := h.Keep(gpu.FromHost(b, randn(pd.SeqK*kw, 1), pd.SeqK, kw))
	v := h.Keep(gpu.FromHost(b, vh, pd.SeqK, kw))
	y := h.Keep(b.Alloc(gpu.F32, pd.SeqQ, qw))
	if h.Err != nil {
		return gpu.KernelCheck(c), h.Err
	}
	run := func() { b.Attention(y, q, k, v, p) }
	got, err := b.forced(kernel, y, run)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	want, err := b.forced(twin, y, run)
	if err != nil {
		return gpu.KernelCheck(c), err
	}
	c.compare(got, want)
	return gpu.KernelCheck(c), nil
}
