package remap_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
	"kleinbild/weights/remap"
)

func openCkpt(t *testing.T, path string) *weights.Checkpoint {
	t.Helper()
	c, err := weights.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkSameAsFolder applies plan to the tensors of the safetensors file src and requires the
// result to be the diffusers folder's tensors bit for bit: same names, dtypes, shapes, bytes.
func checkSameAsFolder(t *testing.T, plan remap.Plan, src *weights.File, folder *weights.Checkpoint) {
	t.Helper()
	if got, want := plan.Targets(), folder.Names(); !slices.Equal(got, want) {
		t.Fatalf("plan targets (%d) differ from the folder's tensors (%d):\nextra %v\nmissing %v", len(got), len(want), minus(got, want), minus(want, got))
	}
	for _, name := range plan.Targets() {
		s := plan[name]
		st, err := src.Tensor(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := folder.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		shape, err := s.Shape(st.Shape)
		if err != nil {
			t.Fatal(err)
		}
		n, rowBytes := 1, len(st.Bytes())
		if len(st.Shape) > 0 {
			n = st.Shape[0]
			rowBytes = len(st.Bytes()) / max(n, 1)
		}
		got, err := s.Bytes(st.Bytes(), n, rowBytes)
		if err != nil {
			t.Fatal(err)
		}
		if st.DType != want.DType || !slices.Equal(shape, want.Shape) || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s (from %s, %v): %s %v, want %s %v, bytes equal %v", name, s.Name, s.Op, st.DType, shape, want.DType, want.Shape, bytes.Equal(got, want.Bytes()))
		}
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestBFLTransformerFile: the BFL single-file transformer, renamed and split, is bit-identical
// to the diffusers folder's transformer (golden: asserted by the generator with diffusers'
// converter). Tolerance: none.
func TestBFLTransformerFile(t *testing.T) {
	src := golden.Open(t, "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors")
	plan, naming, err := remap.Transformer(src.Names())
	if err != nil || naming != remap.BFL {
		t.Fatalf("%v %v", naming, err)
	}
	checkSameAsFolder(t, plan, src, openCkpt(t, golden.TinyModel(t)+"/transformer"))
	if s := plan["norm_out.linear.weight"]; s.Op != remap.SwapHalves {
		t.Errorf("norm_out.linear.weight: %+v", s)
	}
	if s := plan["single_transformer_blocks.1.attn.to_qkv_mlp_proj.weight"]; s.Name != "single_blocks.1.linear1.weight" || s.Op != remap.Copy {
		t.Errorf("linear1 must stay fused: %+v", s)
	}
}

// TestBFLVAEFile: BFL's autoencoder naming, renamed (reversed up levels, 1x1 kernels
// squeezed), is bit-identical to the diffusers folder's VAE. Tolerance: none.
func TestBFLVAEFile(t *testing.T) {
	src := golden.Open(t, "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors")
	plan, naming, err := remap.VAE(src.Names())
	if err != nil || naming != remap.BFL {
		t.Fatalf("%v %v", naming, err)
	}
	checkSameAsFolder(t, plan, src, openCkpt(t, golden.TinyModel(t)+"/vae"))
}

// TestDiffusersNamesIdentity: files already in diffusers / transformers naming (Comfy-Org's
// flux2-vae.safetensors and qwen_3_4b.safetensors are the folder's files) map to themselves.
func TestDiffusersNamesIdentity(t *testing.T) {
	for _, c := range []struct {
		dir  string
		plan func([]string) (remap.Plan, remap.Naming, error)
	}{
		{"vae", remap.VAE},
		{"transformer", remap.Transformer},
		{"text_encoder", func(n []string) (remap.Plan, remap.Naming, error) { return remap.TextEncoder(n, -1) }},
	} {
		ck := openCkpt(t, golden.TinyModel(t)+"/"+c.dir)
		plan, naming, err := c.plan(ck.Names())
		if err != nil || naming != remap.Diffusers {
			t.Fatalf("%s: %v %v", c.dir, naming, err)
		}
		for _, n := range ck.Names() {
			if s, ok := plan[n]; !ok || s.Name != n || s.Op != remap.Copy {
				t.Errorf("%s: %s -> %+v", c.dir, n, s)
			}
		}
	}
}

// TestTextEncoderMaxLayer: layers above maxLayer are left out, in both namings.
func TestTextEncoderMaxLayer(t *testing.T) {
	ck := openCkpt(t, golden.TinyModel(t)+"/text_encoder")
	plan, _, err := remap.TextEncoder(ck.Names(), 26)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != len(ck.Names())-11 || plan.Has("model.layers.27.mlp.up_proj.weight") || !plan.Has("model.layers.26.mlp.up_proj.weight") || !plan.Has("model.norm.weight") {
		t.Errorf("maxLayer 26 on transformers names: %d of %d tensors", len(plan), len(ck.Names()))
	}
	te, err := gguf.Open(golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	plan, naming, err := remap.TextEncoder(te.Names(), 9)
	if err != nil || naming != remap.LlamaCpp {
		t.Fatal(naming, err)
	}
	if len(plan) != 2+10*11 || plan.Has("model.layers.10.input_layernorm.weight") || !plan.Has("model.layers.9.self_attn.k_norm.weight") {
		t.Errorf("maxLayer 9 on llama.cpp names: %d tensors", len(plan))
	}
}

// rel is the relative L2 error and max abs error of got against want.
func rel(got, want []float32) (float64, float64) {
	var num, den, mx float64
	for i := range got {
		d := float64(got[i]) - float64(want[i])
		num += d * d
		den += float64(want[i]) * float64(want[i])
		mx = max(mx, math.Abs(d))
	}
	return math.Sqrt(num / den), mx
}

// quantTol is the rel-L2 error allowed between a quantized tensor and the BF16 weights it was
// made from (measured on these files: Q8_0 <= 0.0058, Q4_0 <= 0.086, Q4_K <= 0.079; a wrong
// mapping, split or swap gives about 1.4). F32 and BF16 tensors must be exact (BF16 values
// are exact in both); F16 ones are exact except below F16's normal range, where rounding to
// the subnormal step 2^-24 errs by at most 2^-25.
var quantTol = map[gguf.Type]float64{gguf.Q8_0: 0.008, gguf.Q4_0: 0.12, gguf.Q4_K: 0.11}

const f16SubnormalErr = 1.0 / (1 << 25)

// checkGGUF applies plan to a GGUF file's packed rows, dequantizes each target and checks
// (1) splitting the packed rows equals splitting the dequantized tensor (bit-exact), and
// (2) the values match the BF16 folder: exactly for unquantized types, within quantTol
// otherwise.
func checkGGUF(t *testing.T, plan remap.Plan, f *gguf.File, folder *weights.Checkpoint) map[gguf.Type]float64 {
	t.Helper()
	if got, want := plan.Targets(), folder.Names(); !slices.Equal(got, want) {
		t.Fatalf("plan targets differ from the folder's:\nextra %v\nmissing %v", minus(got, want), minus(want, got))
	}
	worst := map[gguf.Type]float64{}
	for _, name := range plan.Targets() {
		s := plan[name]
		src, err := f.Tensor(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		shape, err := s.Shape(src.Shape)
		if err != nil {
			t.Fatal(err)
		}
		rowBytes, err := src.Type.RowBytes(src.RowLen())
		if err != nil {
			t.Fatal(err)
		}
		n := src.Numel() / src.RowLen()
		if len(src.Shape) > 1 {
			rowBytes *= src.Numel() / src.Shape[0] / src.RowLen()
			n = src.Shape[0]
		}
		packed, err := s.Bytes(src.Bytes(), n, rowBytes)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(packed)/rowBytes*(src.Numel()/max(n, 1)))
		if err := gguf.Dequantize(src.Type, got, packed); err != nil {
			t.Fatal(err)
		}
		whole, _ := src.Float32()
		split, err := s.Bytes(f32le(whole), n, 4*src.Numel()/max(n, 1))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f32le(got), split) {
			t.Errorf("%s: splitting packed %s rows differs from splitting dequantized rows", name, src.Type)
		}
		wt, _ := folder.Tensor(name)
		want, _ := wt.Float32()
		if !slices.Equal(shape, wt.Shape) {
			t.Errorf("%s: shape %v, want %v", name, shape, wt.Shape)
			continue
		}
		r, mx := rel(got, want)
		tol, quantized := quantTol[src.Type]
		switch {
		case src.Type == gguf.F16 && mx > f16SubnormalErr:
			t.Errorf("%s (%s): max abs %g > 2^-25", name, src.Type, mx)
		case !quantized && src.Type != gguf.F16 && mx != 0:
			t.Errorf("%s (%s): max abs %g, want exact", name, src.Type, mx)
		case quantized && !(r <= tol):
			t.Errorf("%s (%s): rel-L2 %.4g > %g (max abs %.3g)", name, src.Type, r, tol, mx)
		}
		worst[src.Type] = max(worst[src.Type], r)
	}
	return worst
}

func f32le(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		b := math.Float32bits(x)
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
	}
	return out
}

// TestGGUFTransformers: the city96 (bare BFL names, general.architecture flux) and sd.cpp
// (model.diffusion_model. prefix, no metadata, a K-quant) transformer GGUFs plan onto exactly
// the diffusers folder's tensors; values as checkGGUF.
func TestGGUFTransformers(t *testing.T) {
	folder := openCkpt(t, golden.TinyModel(t)+"/transformer")
	for _, p := range []string{"comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"} {
		f, err := gguf.Open(golden.Path(t, "gguf", "model", p))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		plan, naming, err := remap.Transformer(f.Names())
		if err != nil || naming != remap.BFL {
			t.Fatalf("%s: %v %v", p, naming, err)
		}
		t.Logf("%s: worst rel-L2 per type %v", p, checkGGUF(t, plan, f, folder))
	}
}

// TestGGUFTextEncoder: the llama.cpp Qwen3 GGUF plans onto exactly the folder's text encoder
// tensors (lm_head is tied and absent in both); values as checkGGUF.
func TestGGUFTextEncoder(t *testing.T) {
	f, err := gguf.Open(golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plan, naming, err := remap.TextEncoder(f.Names(), -1)
	if err != nil || naming != remap.LlamaCpp {
		t.Fatal(naming, err)
	}
	t.Logf("worst rel-L2 per type %v", checkGGUF(t, plan, f, openCkpt(t, golden.TinyModel(t)+"/text_encoder")))
}

func TestSourceOps(t *testing.T) {
	data := []byte("aabbccdd") // 4 rows of 2 bytes
	cases := []struct {
		s     remap.Source
		want  string
		shape []int
	}{
		{remap.Source{Op: remap.Copy}, "aabbccdd", []int{4, 2}},
		{remap.Source{Op: remap.SwapHalves}, "ccddaabb", []int{4, 2}},
		{remap.Source{Op: remap.Chunk, Part: 1, Parts: 2}, "ccdd", []int{2, 2}},
		{remap.Source{Op: remap.Chunk, Part: 3, Parts: 4}, "dd", []int{1, 2}},
	}
	for _, c := range cases {
		got, err := c.s.Bytes(data, 4, 2)
		shape, err2 := c.s.Shape([]int{4, 2})
		if err != nil || err2 != nil || string(got) != c.want || !slices.Equal(shape, c.shape) {
			t.Errorf("%+v: %q %v (%v, %v), want %q %v", c.s, got, shape, err, err2, c.want, c.shape)
		}
	}
	if sh, err := (remap.Source{Op: remap.Squeeze}).Shape([]int{8, 8, 1, 1}); err != nil || !slices.Equal(sh, []int{8, 8}) {
		t.Errorf("squeeze: %v %v", sh, err)
	}
	bad := []struct {
		s       remap.Source
		n, rowB int
	}{
		{remap.Source{Op: remap.Chunk, Part: 0, Parts: 3}, 4, 2},
		{remap.Source{Op: remap.Chunk, Part: 2, Parts: 2}, 4, 2},
		{remap.Source{Op: remap.Chunk, Part: 0, Parts: 0}, 4, 2},
		{remap.Source{Op: remap.SwapHalves}, 8, 1},
		{remap.Source{Op: remap.Copy}, 3, 2},
		{remap.Source{Op: remap.Copy}, -1, 2},
		{remap.Source{Op: remap.Op(9)}, 4, 2},
	}
	for _, c := range bad {
		if c.s.Op == remap.SwapHalves {
			if _, err := c.s.Bytes([]byte("abcdefg"), 7, 1); err == nil {
				t.Error("swap of 7 rows")
			}
			continue
		}
		if _, err := c.s.Bytes(data, c.n, c.rowB); err == nil {
			t.Errorf("%+v n=%d: no error", c.s, c.n)
		}
	}
}

func TestUnknownNames(t *testing.T) {
	cases := map[string]func() error{
		"transformer unknown naming": func() error { _, _, err := remap.Transformer([]string{"foo.weight"}); return err },
		"transformer stray name": func() error {
			_, _, err := remap.Transformer([]string{"double_blocks.0.img_attn.qkv.weight", "double_blocks.0.img_mod.lin.weight"})
			return err
		},
		"transformer bad index": func() error {
			_, _, err := remap.Transformer([]string{"double_blocks.01.img_attn.qkv.weight", "double_blocks.x.img_mlp.0.weight"})
			return err
		},
		"transformer dup": func() error {
			_, _, err := remap.Transformer([]string{"img_in.weight", "model.diffusion_model.img_in.weight", "double_blocks.0.img_mlp.0.weight"})
			return err
		},
		"vae stray":   func() error { _, _, err := remap.VAE([]string{"encoder.down.0.block.0.norm9.weight"}); return err },
		"vae unknown": func() error { _, _, err := remap.VAE([]string{"x"}); return err },
		"te stray": func() error {
			_, _, err := remap.TextEncoder([]string{"token_embd.weight", "blk.0.attn_zz.weight"}, -1)
			return err
		},
		"te unknown":   func() error { _, _, err := remap.TextEncoder([]string{"x.weight"}, -1); return err },
		"te bad param": func() error { _, _, err := remap.TextEncoder([]string{"blk.0.attn_q.scale"}, -1); return err },
		"te bad global": func() error {
			_, _, err := remap.TextEncoder([]string{"blk.0.attn_q.weight", "token_embd.x"}, -1)
			return err
		},
		"vae up too high": func() error {
			_, _, err := remap.VAE([]string{"decoder.up.0.block.0.conv1.weight", "decoder.up.x.block.0.conv1.weight"})
			return err
		},
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(name, "stray") && !strings.Contains(err.Error(), "unknown names") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// guidance_in (FLUX.2-dev files) and biases map too.
	targets, _, ok := remap.BFLTransformerName("guidance_in.out_layer.bias")
	if !ok || targets[0] != "time_guidance_embed.guidance_embedder.linear_2.bias" {
		t.Errorf("guidance_in: %v %v", targets, ok)
	}
}
