package vae

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/weights"
)

// syntheticVAE writes a vae/ folder with the real FLUX.2 VAE's architecture (the
// AutoencoderKLFlux2 defaults) and random BF16 weights, and returns it.
func syntheticVAE(tb testing.TB) string {
	tb.Helper()
	cfg := defaultConfig()
	dir := tb.TempDir()
	raw, err := json.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	var ts []weights.OutTensor
	uniform := func(name string, scale, offset float64, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]uint16, n)
		for i := range v {
			v[i] = weights.RoundBF16(float32(offset + scale*(2*r.Float64()-1)))
		}
		ts = append(ts, weights.OutTensor{Name: name, Shape: shape, BF16: v})
	}
	convT := func(name string, out, in, k int) {
		// Uniform with variance 1/fan_in keeps activations O(1).
		uniform(name+".weight", math.Sqrt(3/float64(in*k*k)), 0, out, in, k, k)
		uniform(name+".bias", 0.02, 0, out)
	}
	normT := func(name string, c int) {
		uniform(name+".weight", 0.1, 1, c)
		uniform(name+".bias", 0.05, 0, c)
	}
	resT := func(name string, in, out int) {
		normT(name+".norm1", in)
		convT(name+".conv1", out, in, 3)
		normT(name+".norm2", out)
		convT(name+".conv2", out, out, 3)
		if in != out {
			convT(name+".conv_shortcut", out, in, 1)
		}
	}
	midT := func(name string, c int) {
		resT(name+".resnets.0", c, c)
		resT(name+".resnets.1", c, c)
		a := name + ".attentions.0"
		normT(a+".group_norm", c)
		for _, l := range []string{".to_q", ".to_k", ".to_v", ".to_out.0"} {
			uniform(a+l+".weight", math.Sqrt(3/float64(c)), 0, c, c)
			uniform(a+l+".bias", 0.02, 0, c)
		}
	}
	ch, lc, n := cfg.BlockOutChannels, cfg.LatentChannels, len(cfg.BlockOutChannels)
	convT("encoder.conv_in", ch[0], cfg.InChannels, 3)
	prev := ch[0]
	for i, out := range ch {
		for j := range cfg.LayersPerBlock {
			in := out
			if j == 0 {
				in = prev
			}
			resT(fmt.Sprintf("encoder.down_blocks.%d.resnets.%d", i, j), in, out)
		}
		if i < n-1 {
			convT(fmt.Sprintf("encoder.down_blocks.%d.downsamplers.0.conv", i), out, out, 3)
		}
		prev = out
	}
	midT("encoder.mid_block", ch[n-1])
	normT("encoder.conv_norm_out", ch[n-1])
	convT("encoder.conv_out", 2*lc, ch[n-1], 3)
	convT("quant_conv", 2*lc, 2*lc, 1)
	convT("post_quant_conv", lc, lc, 1)
	convT("decoder.conv_in", ch[n-1], lc, 3)
	midT("decoder.mid_block", ch[n-1])
	prev = ch[n-1]
	for i := range n {
		out := ch[n-1-i]
		for j := range cfg.LayersPerBlock + 1 {
			in := out
			if j == 0 {
				in = prev
			}
			resT(fmt.Sprintf("decoder.up_blocks.%d.resnets.%d", i, j), in, out)
		}
		if i < n-1 {
			convT(fmt.Sprintf("decoder.up_blocks.%d.upsamplers.0.conv", i), out, out, 3)
		}
		prev = out
	}
	normT("decoder.conv_norm_out", ch[0])
	convT("decoder.conv_out", cfg.OutChannels, ch[0], 3)
	uniform("bn.running_mean", 0.5, 0, 4*lc)
	uniform("bn.running_var", 0.5, 1, 4*lc)
	ts = append(ts, weights.OutTensor{Name: "bn.num_batches_tracked", Shape: []int{}, I64: []int64{1000}})
	if err := weights.WriteFile(filepath.Join(dir, "diffusion_pytorch_model.safetensors"), ts, nil); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// convFLOPs is the multiply-add count ×2 of a convolution producing npix output pixels.
func convFLOPs(c conv, npix int) float64 { return 2 * float64(c.out*c.in*c.k*c.k) * float64(npix) }

func (m *midBlock) flops(hw int) float64 {
	f := 2 * (convFLOPs(m.res0.conv1, hw) + convFLOPs(m.res0.conv2, hw))
	if m.attn != nil {
		c := float64(m.attn.channels)
		f += 4*2*float64(hw)*c*c + 4*float64(hw)*float64(hw)*c
	}
	return f
}

func resnetFLOPs(r resnet, hw int) float64 {
	f := convFLOPs(r.conv1, hw) + convFLOPs(r.conv2, hw)
	if r.shortcut != nil {
		f += convFLOPs(*r.shortcut, hw)
	}
	return f
}

// decodeFLOPs counts the convolution, linear and attention work of decoding an h×w latent.
func (v *VAE) decodeFLOPs(h, w int) float64 {
	d := &v.dec
	hw := h * w
	f := convFLOPs(d.convIn, hw) + d.mid.flops(hw)
	if d.postQuant != nil {
		f += convFLOPs(*d.postQuant, hw)
	}
	for _, lv := range d.levels {
		for _, r := range lv.resnets {
			f += resnetFLOPs(r, hw)
		}
		if lv.resize != nil {
			hw *= 4
			f += convFLOPs(*lv.resize, hw)
		}
	}
	return f + convFLOPs(d.convOut, hw)
}

// encodeFLOPs counts the work of encoding an h×w image.
func (v *VAE) encodeFLOPs(h, w int) float64 {
	e := &v.enc
	hw := h * w
	f := convFLOPs(e.convIn, hw)
	for _, lv := range e.levels {
		for _, r := range lv.resnets {
			f += resnetFLOPs(r, hw)
		}
		if lv.resize != nil {
			hw /= 4
			f += convFLOPs(*lv.resize, hw)
		}
	}
	f += e.mid.flops(hw) + convFLOPs(e.convOut, hw)
	if e.quant != nil {
		f += convFLOPs(*e.quant, hw)
	}
	return f
}

func loadSynthetic(b *testing.B) *VAE {
	b.Helper()
	v, err := Load(syntheticVAE(b), device())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	return v
}

// BenchmarkDecode128 decodes a 16×16 latent (a 128×128 image) at the real VAE's width.
func BenchmarkDecode128(b *testing.B) {
	v := loadSynthetic(b)
	r := rand.New(rand.NewPCG(3, 4))
	const h, w = 16, 16
	lat := randSlice(r, v.cfg.LatentChannels*h*w)
	flops := v.decodeFLOPs(h, w)
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Decode(context.Background(), lat, h, w, nil); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec*1e3, "ms/decode")
	b.ReportMetric(flops/sec/1e9, "GFLOP/s")
	b.ReportMetric(flops/1e9, "GFLOP")
}

// BenchmarkEncode128 encodes a 128×128 image at the real VAE's width.
func BenchmarkEncode128(b *testing.B) {
	v := loadSynthetic(b)
	r := rand.New(rand.NewPCG(5, 6))
	const h, w = 128, 128
	img := randSlice(r, 3*h*w)
	flops := v.encodeFLOPs(h, w)
	b.ResetTimer()
	for b.Loop() {
		if _, err := v.Encode(context.Background(), img, h, w, nil); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec*1e3, "ms/encode")
	b.ReportMetric(flops/sec/1e9, "GFLOP/s")
	b.ReportMetric(flops/1e9, "GFLOP")
}
