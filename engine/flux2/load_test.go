package flux2

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

const weightFile = "diffusion_pytorch_model.safetensors"

// tinyTensors returns copies of every tensor of the tiny transformer checkpoint.
func tinyTensors(t *testing.T) []weights.OutTensor {
	t.Helper()
	f := golden.Open(t, filepath.Join("model", "tiny-flux2-klein", "transformer", weightFile))
	var out []weights.OutTensor
	for _, name := range f.Names() {
		tn, err := f.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tn.BF16()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, weights.OutTensor{Name: name, Shape: slices.Clone(tn.Shape), BF16: slices.Clone(v)})
	}
	return out
}

// tinyConfig returns the tiny transformer config.json as a map.
func tinyConfig(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "transformer", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// writeModel writes a transformer folder with the given config and tensors.
func writeModel(t *testing.T, cfg map[string]any, tensors []weights.OutTensor) string {
	t.Helper()
	dir := t.TempDir()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := weights.WriteFile(filepath.Join(dir, weightFile), tensors, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadErrors(t *testing.T) {
	base := tinyTensors(t)
	without := func(name string) []weights.OutTensor {
		return slices.DeleteFunc(slices.Clone(base), func(x weights.OutTensor) bool { return x.Name == name })
	}
	replaced := func(x weights.OutTensor) []weights.OutTensor {
		return append(without(x.Name), x)
	}
	cfgWith := func(key string, v any) map[string]any {
		c := tinyConfig(t)
		if v == nil {
			delete(c, key)
		} else {
			c[key] = v
		}
		return c
	}
	cases := []struct {
		name    string
		cfg     map[string]any
		tensors []weights.OutTensor
		want    []string // substrings of the error
	}{
		{"missing tensor", tinyConfig(t), without("single_transformer_blocks.1.attn.norm_k.weight"),
			[]string{"single_transformer_blocks.1.attn.norm_k.weight", weightFile}},
		{"wrong shape", tinyConfig(t), replaced(weights.OutTensor{Name: "transformer_blocks.0.ff.linear_in.weight", Shape: []int{383, 64}, BF16: make([]uint16, 383*64)}),
			[]string{"transformer_blocks.0.ff.linear_in.weight", "[383 64]", "[384 64]", weightFile}},
		{"integer weight", tinyConfig(t), replaced(weights.OutTensor{Name: "x_embedder.weight", Shape: []int{64, 128}, I64: make([]int64, 64*128)}),
			[]string{"x_embedder.weight", "I64"}},
		{"fewer blocks in config", cfgWith("num_single_layers", 1), base,
			[]string{"single_transformer_blocks.1.", "beyond"}},
		{"more blocks in config", cfgWith("num_layers", 3), base,
			[]string{"config.json", `"num_layers" is 3`, "hold 2 transformer_blocks"}},
		{"config missing field", cfgWith("num_layers", nil), base,
			[]string{"config.json", "num_layers"}},
		{"config missing axes", cfgWith("axes_dims_rope", nil), base,
			[]string{"axes_dims_rope"}},
		{"config bad axes", cfgWith("axes_dims_rope", []int{8, 8, 8, 6}), base,
			[]string{"axes_dims_rope", "attention_head_dim 32"}},
		{"config guidance", cfgWith("guidance_embeds", true), base,
			[]string{"guidance_embeds"}},
		{"config wrong type", cfgWith("num_layers", "two"), base,
			[]string{"config.json", "malformed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModel(t, tc.cfg, tc.tensors)
			m, err := Load(dir, backends.Default())
			if err == nil {
				m.Close()
				t.Fatal("Load succeeded")
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}

	t.Run("no config", func(t *testing.T) {
		dir := t.TempDir()
		if err := weights.WriteFile(filepath.Join(dir, weightFile), base, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, backends.Default()); err == nil || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Load without config.json: %v, want ErrNotExist", err)
		}
	})
	t.Run("no weights", func(t *testing.T) {
		dir := writeModel(t, tinyConfig(t), base)
		if err := os.Remove(filepath.Join(dir, weightFile)); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, backends.Default()); err == nil {
			t.Error("Load without safetensors succeeded")
		}
	})
	t.Run("truncated weights", func(t *testing.T) {
		dir := writeModel(t, tinyConfig(t), base)
		p := filepath.Join(dir, weightFile)
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, backends.Default()); err == nil {
			t.Error("Load of a truncated file succeeded")
		}
	})
}

// TestLoadF32 checks that float32 checkpoints (zero-copy F32 views) give the bf16 results.
func TestLoadF32(t *testing.T) {
	tensors := tinyTensors(t)
	for i, x := range tensors {
		f := make([]float32, len(x.BF16))
		weights.BF16ToF32(f, x.BF16)
		tensors[i] = weights.OutTensor{Name: x.Name, Shape: x.Shape, F32: f}
	}
	m, err := Load(writeModel(t, tinyConfig(t), tensors), backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	gc := readCase(t, golden.Path(t, "transformer", "i2i_2x3_ref1_sigma0.75.safetensors"))
	out, err := m.ForwardHost(context.Background(), gc.in, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "output (f32 weights)", out, gc.output, outputTol)
}

func TestConfig(t *testing.T) {
	c, err := LoadConfig(filepath.Join(golden.TinyModel(t), "transformer", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{PatchSize: 1, InChannels: 128, OutChannels: 128, NumLayers: 2, NumSingleLayers: 2,
		AttentionHeadDim: 32, NumAttentionHeads: 2, JointAttentionDim: 96, TimestepGuidanceChannels: 256,
		MLPRatio: 3, AxesDimsRope: []int{8, 8, 8, 8}, RopeTheta: 2000, Eps: 1e-6}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("tiny config = %+v, want %+v", c, want)
	}
	if c.Hidden() != 64 || c.MLPHidden() != 192 || c.Blocks() != 4 {
		t.Errorf("Hidden %d MLPHidden %d Blocks %d, want 64 192 4", c.Hidden(), c.MLPHidden(), c.Blocks())
	}

	// klein-4B as in SPEC.md; only the required fields, the rest defaulted.
	c, err = parseConfig([]byte(`{"attention_head_dim": 128, "axes_dims_rope": [32, 32, 32, 32], "in_channels": 128,
		"joint_attention_dim": 7680, "num_attention_heads": 24, "num_layers": 5, "num_single_layers": 20}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hidden() != 3072 || c.MLPHidden() != 9216 || c.OutChannels != 128 || c.RopeTheta != 2000 || c.Eps != 1e-6 || c.TimestepGuidanceChannels != 256 {
		t.Errorf("klein-4B config = %+v", c)
	}
	for _, bad := range []string{``, `[]`, `{"in_channels": 128}`} {
		if _, err := parseConfig([]byte(bad)); err == nil {
			t.Errorf("parseConfig(%q) succeeded", bad)
		}
	}
}

func TestForwardBadInput(t *testing.T) {
	m := loadTiny(t)
	gc := readCase(t, golden.Path(t, "transformer", "t2i_2x3_sigma0.3.safetensors"))
	good := gc.in
	cases := []struct {
		name string
		edit func(*HostInput)
		want string
	}{
		{"img short", func(in *HostInput) { in.Img = in.Img[:len(in.Img)-1] }, "Img has"},
		{"img ids ragged", func(in *HostInput) { in.ImgIDs = in.ImgIDs[:len(in.ImgIDs)-1] }, "ImgIDs"},
		{"img ids extra token", func(in *HostInput) { in.ImgIDs = append(slices.Clone(in.ImgIDs), 0, 9, 9, 0) }, "Img has"},
		{"no image", func(in *HostInput) { in.Img, in.ImgIDs = nil, nil }, "no image tokens"},
		{"txt long", func(in *HostInput) { in.Txt = append(slices.Clone(in.Txt), 1) }, "Txt has"},
		{"txt ids short", func(in *HostInput) { in.TxtIDs = in.TxtIDs[:len(in.TxtIDs)-4] }, "Txt has"},
		{"txt ids ragged", func(in *HostInput) { in.TxtIDs = in.TxtIDs[:3] }, "TxtIDs"},
		{"nan timestep", func(in *HostInput) { in.Timestep = float32(math.NaN()) }, "timestep"},
	}
	for _, tc := range cases {
		in := good
		tc.edit(&in)
		if _, err := m.ForwardHost(context.Background(), in, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}

	// No text at all is a valid (if unusual) call.
	in := good
	in.Txt, in.TxtIDs = nil, nil
	if _, err := m.ForwardHost(context.Background(), in, nil); err != nil {
		t.Errorf("Forward without text: %v", err)
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ForwardHost(context.Background(), good, nil); err == nil {
		t.Error("Forward after Close succeeded")
	}
}

// TestForwardBadTensors checks Forward's validation of device tensors.
func TestForwardBadTensors(t *testing.T) {
	m := loadTiny(t)
	b := m.b
	gc := readCase(t, golden.Path(t, "transformer", "t2i_2x3_sigma0.3.safetensors"))
	c := m.Config()
	n, l := len(gc.in.ImgIDs)/4, len(gc.in.TxtIDs)/4
	img, err := gpu.FromHost(b, gc.in.Img, n, c.InChannels)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(img)
	txt, err := gpu.FromHost(b, gc.in.Txt, l, c.JointAttentionDim)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(txt)
	bits := make([]uint16, len(gc.in.Img))
	weights.F32ToBF16(bits, gc.in.Img)
	img16, err := b.WeightBF16(bits, n, c.InChannels)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(img16)
	out, err := b.Alloc(gpu.F32, n+1, c.OutChannels)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(out)
	in := Input{Img: img, ImgIDs: gc.in.ImgIDs, Txt: txt, TxtIDs: gc.in.TxtIDs, Timestep: gc.in.Timestep}
	if err := m.Forward(context.Background(), in, out, nil); err == nil || !strings.Contains(err.Error(), "output") {
		t.Errorf("Forward into a too large output: %v, want an error mentioning the output", err)
	}
	good := out.Slice(0, n*c.OutChannels)
	bad := in
	bad.Img = img16
	if err := m.Forward(context.Background(), bad, good, nil); err == nil || !strings.Contains(err.Error(), "f32") {
		t.Errorf("Forward of bf16 image tokens: %v, want an error mentioning f32", err)
	}
	bad = in
	bad.Txt = gpu.Tensor{}
	if err := m.Forward(context.Background(), bad, good, nil); err == nil || !strings.Contains(err.Error(), "Txt has") {
		t.Errorf("Forward without the text tensor: %v, want an error mentioning Txt", err)
	}
	if err := m.Forward(context.Background(), in, good, nil); err != nil {
		t.Fatal(err)
	}
	got, err := gpu.ToHost(b, good)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "output (device Forward)", got, gc.output, outputTol)
}

func TestForwardCancel(t *testing.T) {
	m := loadTiny(t)
	gc := readCase(t, golden.Path(t, "transformer", "t2i_2x3_sigma0.3.safetensors"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.ForwardHost(ctx, gc.in, func(int, int) { t.Error("progress called after cancellation") })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Forward with a cancelled context: %v, want context.Canceled", err)
	}

	// Cancel while running: no block may start after the one that saw the cancellation.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var calls []int
	_, err = m.ForwardHost(ctx, gc.in, func(block, total int) {
		calls = append(calls, block)
		if block == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Forward cancelled after block 1: %v, want context.Canceled", err)
	}
	if !slices.Equal(calls, []int{1}) {
		t.Errorf("progress calls %v, want [1]", calls)
	}

	// The model still works afterwards.
	out, err := m.ForwardHost(context.Background(), gc.in, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "output after a cancelled call", out, gc.output, outputTol)
}

func TestExpf(t *testing.T) {
	// SLEEF's expf is within 1 ulp of the true value.
	for x := float32(-87); x < 88; x += 0.0371 { // normal results
		got, want := expf(x), float32(math.Exp(float64(x)))
		if d := math.Abs(float64(got-want)) / float64(want); d > 1.2e-7 {
			t.Fatalf("expf(%v) = %v, want %v (rel %.3g)", x, got, want, d)
		}
	}
	if expf(-200) != 0 || !math.IsInf(float64(expf(200)), 1) || expf(0) != 1 {
		t.Error("expf limits wrong")
	}
}

// LoadConfig takes the transformer folder as well as its config.json, like qwen3's and
// vae's LoadConfig.
func TestLoadConfigFolder(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "transformer")
	fromDir, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil || fromDir.Hidden() != fromFile.Hidden() || fromDir.NumLayers != fromFile.NumLayers || fromDir.JointAttentionDim != fromFile.JointAttentionDim {
		t.Fatalf("folder %+v, file %+v (%v)", fromDir, fromFile, err)
	}
}
