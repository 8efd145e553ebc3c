package engine

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// poisonedModel copies the tiny model into a temp folder (links, except comp's weights)
// with value written into element index of the named tensor of comp.
func poisonedModel(t *testing.T, comp, tensor string, index int, value float32) string {
	t.Helper()
	tiny := golden.TinyModel(t)
	dir := t.TempDir()
	entries, err := os.ReadDir(tiny)
	if err != nil {
		t.Fatal(err)
	}
	link := func(src, dst string) {
		abs, err := filepath.Abs(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, dst); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range entries {
		if e.Name() != comp {
			link(filepath.Join(tiny, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	if err := os.Mkdir(filepath.Join(dir, comp), 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := os.ReadDir(filepath.Join(tiny, comp))
	found := false
	for _, e := range files {
		src := filepath.Join(tiny, comp, e.Name())
		dst := filepath.Join(dir, comp, e.Name())
		if !strings.HasSuffix(e.Name(), ".safetensors") {
			link(src, dst)
			continue
		}
		f, err := weights.OpenFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var out []weights.OutTensor
		for _, name := range f.Names() {
			tt, _ := f.Tensor(name)
			o := weights.OutTensor{Name: name, Shape: tt.Shape}
			switch tt.DType {
			case weights.BF16:
				v, _ := tt.BF16()
				o.BF16 = append([]uint16(nil), v...)
				if name == tensor {
					o.BF16[index] = uint16(math.Float32bits(value) >> 16)
					found = true
				}
			case weights.F32:
				v, _ := tt.Float32()
				o.F32 = append([]float32(nil), v...)
				if name == tensor {
					o.F32[index] = value
					found = true
				}
			case weights.I64:
				o.I64, _ = tt.Int64()
			default:
				t.Fatalf("%s: dtype %s not handled", name, tt.DType)
			}
			out = append(out, o)
		}
		if err := weights.WriteFile(dst, out, f.Metadata); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if !found {
		t.Fatalf("no tensor %s in %s", tensor, comp)
	}
	return dir
}

// TestNonFiniteWeightsFail checks that NaN or Inf in any network's weights ends the
// generation with an error naming where it appeared, not with a black image.
func TestNonFiniteWeightsFail(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ref := golden.Path(t, "pipeline", "i2i_ref_83x69.png")
	cases := []struct {
		comp, tensor string
		value        float32
		refs         []string
		want         string
	}{
		{"transformer", "x_embedder.weight", nan, nil, "denoising step 1 produced non-finite latents (NaN)"},
		{"transformer", "x_embedder.weight", inf, nil, "denoising step 1 produced non-finite latents"},
		{"vae", "decoder.conv_in.bias", nan, nil, "VAE decoder produced non-finite pixels (NaN)"},
		{"vae", "encoder.conv_in.bias", nan, []string{ref}, "reference 1: the VAE encoder produced non-finite latents (NaN)"},
		{"text_encoder", "model.layers.0.input_layernorm.weight", nan, nil, "text encoder produced non-finite embeddings (NaN)"},
	}
	for _, c := range cases {
		t.Run(c.comp+"/"+c.tensor, func(t *testing.T) {
			m := openModel(t, poisonedModel(t, c.comp, c.tensor, 0, c.value))
			res, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Seed: 1, References: c.refs}}, nil)
			if err == nil {
				t.Fatalf("generation succeeded (image %v)", res.Image.Bounds())
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "info --deep") {
				t.Fatalf("error %q, want one with %q and the info --deep hint", err, c.want)
			}
		})
	}
}

func TestNonFiniteInputsFail(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	lat := make([]float32, latentChannels*4)
	lat[5] = float32(math.Inf(-1))
	_, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32}, Latents: lat}, nil)
	if err == nil || !strings.Contains(err.Error(), "initial latents contain non-finite values: 1 of 512, the first (value 5) is -Inf") {
		t.Errorf("NaN latents: %v", err)
	}
	emb := make([]float32, TextTokens*m.flux.Config().JointAttentionDim)
	emb[7], emb[9] = float32(math.NaN()), float32(math.NaN())
	_, err = m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32}, PromptEmbeds: emb}, nil)
	if err == nil || !strings.Contains(err.Error(), "prompt embeddings contain non-finite values: 2 of") {
		t.Errorf("NaN embeddings: %v", err)
	}
}

// TestGuidanceValidated checks that guidance out of range or not a number is refused
// before any work (it used to disable CFG, or overflow to a black image).
func TestGuidanceValidated(t *testing.T) {
	for _, g := range []float64{0, 1, 4, 30} {
		if err := ValidateGuidance(g); err != nil {
			t.Errorf("guidance %v refused: %v", g, err)
		}
	}
	m := openModel(t, golden.TinyBaseModel(t))
	for _, g := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -5, 0.5, 30.5, 1e308} {
		calls := 0
		_, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: "x", Width: 32, Height: 32, Guidance: g}},
			func(p Progress) {
				if p.Phase != PhaseLoading {
					calls++
				}
			})
		if err == nil || !strings.Contains(err.Error(), "guidance") {
			t.Errorf("guidance %v: error %v", g, err)
		}
		if calls > 0 {
			t.Errorf("guidance %v: refused only after %d progress reports", g, calls)
		}
	}
}

func TestPromptLengthValidated(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	_, err := m.Generate(context.Background(), Request{Settings: Settings{Prompt: strings.Repeat("x", MaxPromptBytes+1), Width: 32, Height: 32}}, nil)
	if err == nil || !strings.Contains(err.Error(), "prompt is 65537 bytes long") {
		t.Errorf("error %v", err)
	}
}

func TestScanWeights(t *testing.T) {
	var last ScanProgress
	bad, err := ScanWeights(context.Background(), golden.TinyModel(t), func(p ScanProgress) { last = p })
	if err != nil || len(bad) != 0 {
		t.Fatalf("clean model: %v, %v", bad, err)
	}
	if last.Bytes == 0 || last.Bytes > last.TotalBytes || last.Component != "vae" {
		t.Errorf("last progress %+v", last)
	}
	dir := poisonedModel(t, "transformer", "x_embedder.weight", 3, float32(math.Inf(-1)))
	bad, err = ScanWeights(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Name != "x_embedder.weight" || bad[0].Component != "transformer" || bad[0].First != 3 || bad[0].Count != 1 || bad[0].Value != "-Inf" {
		t.Fatalf("found %v", bad)
	}
	t.Log(bad[0])
}

func TestScanTensorDTypes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.safetensors")
	nan16 := uint16(0x7e00) // F16 NaN
	inf16 := uint16(0xfc00) // F16 -Inf
	bfInf := uint16(0x7f80) // BF16 +Inf
	err := weights.WriteFile(p, []weights.OutTensor{
		{Name: "f16", Shape: []int{4}, F16: []uint16{0x3c00, nan16, inf16, 0x7bff}},
		{Name: "bf16", Shape: []int{3}, BF16: []uint16{0x3f80, 0x7f7f, bfInf}},
		{Name: "f32", Shape: []int{3}, F32: []float32{1, math.MaxFloat32, float32(math.NaN())}},
		{Name: "i64", Shape: []int{1}, I64: []int64{-1}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := weights.OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, want := range map[string][3]any{"f16": {2, 1, "NaN"}, "bf16": {1, 2, "+Inf"}, "f32": {1, 2, "NaN"}, "i64": {0, -1, ""}} {
		tt, _ := f.Tensor(name)
		n, first, v := scanTensor(tt.DType, tt.Bytes())
		if n != want[0] || first != want[1] || v != want[2] {
			t.Errorf("%s: %d non-finite, first %d (%s); want %v", name, n, first, v, want)
		}
	}
}

// TestScanQuantized: a block-quantized tensor (GGUF) is scanned as its dequantized values,
// through a transient copy that is not kept on the tensor. The packed Q8_0 block below has a
// NaN scale, so all 32 values it decodes to are NaN; the tensor's own float data stays
// unloaded, and progress counts the packed bytes.
func TestScanQuantized(t *testing.T) {
	vals := make([]float32, 64)
	for i := range vals {
		vals[i] = float32(i) - 20
	}
	packed, err := gguf.QuantizeQ8_0(vals)
	if err != nil {
		t.Fatal(err)
	}
	packed[34], packed[35] = 0x00, 0x7e // second block's f16 scale: NaN
	decodes := 0
	q := &weights.Quant{Type: "Q8_0", Data: packed, Decode: func() ([]byte, error) {
		decodes++
		out := make([]float32, len(vals))
		if err := gguf.Dequantize(gguf.Q8_0, out, packed); err != nil {
			return nil, err
		}
		b := make([]byte, 4*len(out))
		for i, x := range out {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b, nil
	}}
	f, err := weights.NewFile("q.gguf", []weights.TensorData{{Name: "w", DType: weights.F32, Shape: []int{2, 32}, Quant: q}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := f.Tensor("w")
	if err != nil {
		t.Fatal(err)
	}
	dtype, b, err := scanBytes(tt)
	if err != nil {
		t.Fatal(err)
	}
	if n, first, v := scanTensor(dtype, b); n != 32 || first != 32 || v != "NaN" {
		t.Errorf("quantized: %d non-finite, first %d (%s); want 32, 32, NaN", n, first, v)
	}
	if got := scanned(tt, b); got != int64(len(packed)) {
		t.Errorf("progress counted %d bytes, want the packed %d", got, len(packed))
	}
	// The tensor did not keep the decoded copy: reading it as float decodes again.
	if _, err := tt.Float32(); err != nil || decodes != 2 {
		t.Errorf("decodes = %d (%v), want 2: the scan kept its float32 copy on the tensor", decodes, err)
	}
}
