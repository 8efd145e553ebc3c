package flux2

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
)

// benchConfig is klein-4B's width with one block of each kind.
var benchConfig = map[string]any{
	"attention_head_dim": 128, "num_attention_heads": 24, "joint_attention_dim": 7680,
	"axes_dims_rope": []int{32, 32, 32, 32}, "in_channels": 128, "mlp_ratio": 3.0,
	"num_layers": 1, "num_single_layers": 1, "rope_theta": 2000, "eps": 1e-6,
	"timestep_guidance_channels": 256, "guidance_embeds": false, "patch_size": 1,
}

// writeRandomModel writes a transformer folder for cfg with random bf16 weights: matrices
// uniform with standard deviation 1/sqrt(fan_in), norm weights around 1.
func writeRandomModel(tb testing.TB, dir string, cfgJSON map[string]any) Config {
	tb.Helper()
	raw, err := json.Marshal(cfgJSON)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := parseConfig(raw)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		tb.Fatal(err)
	}
	// Every tensor name and shape Load expects (TestRandomModelShapes keeps the two in step).
	d, mlp, hd := cfg.Hidden(), cfg.MLPHidden(), cfg.AttentionHeadDim
	shapes := map[string][]int{
		"x_embedder.weight":       {d, cfg.InChannels},
		"context_embedder.weight": {d, cfg.JointAttentionDim},
		"time_guidance_embed.timestep_embedder.linear_1.weight": {d, cfg.TimestepGuidanceChannels},
		"time_guidance_embed.timestep_embedder.linear_2.weight": {d, d},
		"double_stream_modulation_img.linear.weight":            {6 * d, d},
		"double_stream_modulation_txt.linear.weight":            {6 * d, d},
		"single_stream_modulation.linear.weight":                {3 * d, d},
		"norm_out.linear.weight":                                {2 * d, d},
		"proj_out.weight":                                       {cfg.OutChannels, d},
	}
	for i := 0; i < cfg.NumLayers; i++ {
		p := fmt.Sprintf("transformer_blocks.%d.", i)
		for _, n := range []string{"attn.to_q", "attn.to_k", "attn.to_v", "attn.to_out.0", "attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj", "attn.to_add_out"} {
			shapes[p+n+".weight"] = []int{d, d}
		}
		for _, n := range []string{"ff", "ff_context"} {
			shapes[p+n+".linear_in.weight"] = []int{2 * mlp, d}
			shapes[p+n+".linear_out.weight"] = []int{d, mlp}
		}
		for _, n := range []string{"norm_q", "norm_k", "norm_added_q", "norm_added_k"} {
			shapes[p+"attn."+n+".weight"] = []int{hd}
		}
	}
	for i := 0; i < cfg.NumSingleLayers; i++ {
		p := fmt.Sprintf("single_transformer_blocks.%d.attn.", i)
		shapes[p+"to_qkv_mlp_proj.weight"] = []int{3*d + 2*mlp, d}
		shapes[p+"to_out.weight"] = []int{d, d + mlp}
		shapes[p+"norm_q.weight"] = []int{hd}
		shapes[p+"norm_k.weight"] = []int{hd}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var tensors []weights.OutTensor
	for name, shape := range shapes {
		n := 1
		for _, s := range shape {
			n *= s
		}
		v := make([]uint16, n)
		if len(shape) == 1 {
			for i := range v {
				v[i] = weights.RoundBF16(1 + 0.1*float32(rng.NormFloat64()))
			}
		} else {
			// Uniform on [-a, a] has standard deviation a/sqrt(3).
			a := float32(math.Sqrt(3 / float64(shape[1])))
			for i := range v {
				v[i] = weights.RoundBF16(a * (2*rng.Float32() - 1))
			}
		}
		tensors = append(tensors, weights.OutTensor{Name: name, Shape: shape, BF16: v})
	}
	if err := weights.WriteFile(filepath.Join(dir, weightFile), tensors, nil); err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// forwardFLOPs counts the multiply-adds (×2) of one Forward: linear layers and attention.
func forwardFLOPs(c Config, l, n int) float64 {
	s, d, mlp := float64(l+n), float64(c.Hidden()), float64(c.MLPHidden())
	perToken := 4*d*d + 3*d*mlp // both block kinds: 13·d² at mlp_ratio 3
	blocks := float64(c.Blocks())
	macs := blocks*(s*perToken+2*s*s*d) +
		float64(l)*float64(c.JointAttentionDim)*d + float64(n)*d*float64(c.InChannels+c.OutChannels)
	return 2 * macs
}

// BenchmarkForwardKlein4BWidth runs one forward at klein-4B width (1 double + 1 single block,
// 512 text + 256 image tokens). Run briefly: go test -run '^$' -bench Forward -benchtime=1x.
func BenchmarkForwardKlein4BWidth(b *testing.B) {
	dir := b.TempDir()
	cfg := writeRandomModel(b, dir, benchConfig)
	m, err := Load(dir, backends.Default())
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()

	const l, n = 512, 256
	rng := rand.New(rand.NewPCG(3, 4))
	randn := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	be := m.b
	img, err := gpu.FromHost(be, randn(n*cfg.InChannels), n, cfg.InChannels)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(img)
	txt, err := gpu.FromHost(be, randn(l*cfg.JointAttentionDim), l, cfg.JointAttentionDim)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(txt)
	out, err := be.Alloc(gpu.F32, n, cfg.OutChannels)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Free(out)
	in := Input{Img: img, ImgIDs: ImageIDs(16, 16, 0), Txt: txt, TxtIDs: TextIDs(l), Timestep: 0.75}

	// Block times are host-side: exact on a synchronous (CPU) backend. On an asynchronous
	// one, Flush before each block keeps the host at most one block ahead.
	var blockTime [2]time.Duration // double, single
	var last time.Time
	// The rotary tables are the last thing computed before the first block.
	m.mark = func(name string) {
		if name == "rope_sin" {
			last = time.Now()
		}
	}
	b.ResetTimer()
	for b.Loop() {
		err := m.Forward(context.Background(), in, out, func(block, total int) {
			now := time.Now()
			kind := 0
			if block > cfg.NumLayers {
				kind = 1
			}
			blockTime[kind] += now.Sub(last)
			last = now
		})
		if err == nil {
			err = be.Sync()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(forwardFLOPs(cfg, l, n)/sec/1e9, "GFLOP/s")
	b.ReportMetric(blockTime[0].Seconds()*1e3/float64(b.N*cfg.NumLayers), "ms/double-block")
	b.ReportMetric(blockTime[1].Seconds()*1e3/float64(b.N*cfg.NumSingleLayers), "ms/single-block")
	b.ReportMetric(sec*1e3/float64(cfg.Blocks()), "ms/block")
}

// TestRandomModelShapes keeps writeRandomModel in step with Load on a small configuration.
func TestRandomModelShapes(t *testing.T) {
	small := map[string]any{}
	for k, v := range benchConfig {
		small[k] = v
	}
	small["attention_head_dim"], small["num_attention_heads"], small["joint_attention_dim"] = 16, 2, 24
	small["axes_dims_rope"], small["num_layers"], small["num_single_layers"] = []int{4, 4, 4, 4}, 2, 3
	dir := t.TempDir()
	cfg := writeRandomModel(t, dir, small)
	m, err := Load(dir, backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	in := HostInput{Img: make([]float32, 6*cfg.InChannels), ImgIDs: ImageIDs(2, 3, 0),
		Txt: make([]float32, 5*cfg.JointAttentionDim), TxtIDs: TextIDs(5), Timestep: 0.5}
	out, err := m.ForwardHost(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 6*cfg.OutChannels {
		t.Fatalf("output has %d values, want %d", len(out), 6*cfg.OutChannels)
	}
	for i, v := range out {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.Fatalf("output[%d] = %v", i, v)
		}
	}
}
