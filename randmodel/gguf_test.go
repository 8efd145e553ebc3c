package randmodel

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"kleinbild/engine"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// mixTolerance is the worst rel-L2 of a tensor of each written type against its bf16 source:
// Q8_0 < 1%, Q4_K < 9%, Q6_K < 2.1% (the quantizers' tolerances on normal data, see
// weights/gguf TestQuantizeKRoundTrip); unquantized tensors are exact.
var mixTolerance = map[gguf.Type]float64{gguf.Q8_0: 1e-2, gguf.Q4_K: 0.09, gguf.Q6_K: 0.021}

// TestWriteGGUF writes the tiny random model's transformer and text encoder as GGUF files of
// each mix: every tensor has the type the mix rule gives it, reads back within its type's
// error (mixTolerance; the kept ones exactly), and the model generates from the files. The
// tiny model's rows are mostly not whole 256-element super-blocks, so its Q4_K_M files hold
// Q8_0 (the fallback) and, for the single blocks' attn.to_out (row 256, raised), Q6_K.
func TestWriteGGUF(t *testing.T) {
	dir := tinyModel(t, 5)
	for _, c := range []struct {
		mix  Mix
		want map[gguf.Type]bool // quantized types that must occur
	}{
		{MixQ8_0, map[gguf.Type]bool{gguf.Q8_0: true}},
		{MixQ4_K_M, map[gguf.Type]bool{gguf.Q8_0: true, gguf.Q6_K: true}},
	} {
		t.Run(string(c.mix), func(t *testing.T) {
			var err error
			if c.mix == MixQ8_0 {
				err = WriteGGUF(context.Background(), dir) // the Q8_0 entry point
			} else {
				err = WriteGGUFMix(context.Background(), dir, c.mix)
			}
			if err != nil {
				t.Fatal(err)
			}
			files := GGUFFilesOf(c.mix)
			checkGGUFFile(t, dir, "transformer", files.Transformer, mixRule{mix: c.mix, keep: keepTypes, blocks: 4, double: 2}, c.want)
			checkGGUFFile(t, dir, "text_encoder", files.TextEncoder, mixRule{mix: c.mix, blocks: 28}, nil)
			src, err := engine.OpenModelSource(dir, engine.Overrides{Transformer: filepath.Join(dir, files.Transformer), TextEncoder: filepath.Join(dir, files.TextEncoder)})
			if err != nil {
				t.Fatal(err)
			}
			m, err := engine.OpenSource(src, backends.Default(), engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if _, err := m.Generate(context.Background(), engine.Request{Settings: engine.Settings{Prompt: "x", Width: 64, Height: 64, Steps: 1, Seed: 1}}, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := Check(dir, Options{Variant: Tiny, Seed: 5, Tokenizer: golden.TinyModel(t)}); err != nil {
		t.Errorf("the gguf folder breaks Check: %v", err)
	}
	if err := WriteGGUFMix(context.Background(), dir, "Q2_K"); err == nil {
		t.Error("wrote mix Q2_K")
	}
}

// checkGGUFFile compares the GGUF file rel of component comp with its safetensors source.
func checkGGUFFile(t *testing.T, dir, comp, rel string, rule mixRule, want map[gguf.Type]bool) {
	t.Helper()
	f, err := gguf.Open(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, err := weights.Open(filepath.Join(dir, comp))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if len(f.Names()) != len(ref.Names()) {
		t.Errorf("%s: %d tensors, want %d", comp, len(f.Names()), len(ref.Names()))
	}
	worst := map[gguf.Type]float64{}
	for _, n := range ref.Names() {
		w, _ := ref.Tensor(n)
		g, err := f.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		wantType := rule.typeOf(n, w.Shape)
		if wantType == 0 {
			wantType = plainGGUF[w.DType]
		}
		if g.Type != wantType {
			t.Errorf("%s %s: %s, want %s", comp, n, g.Type, wantType)
		}
		wv, _ := w.Float32()
		gv, err := g.Float32()
		if err != nil {
			t.Fatal(err)
		}
		r, _ := golden.Errors(gv, wv)
		if tol, ok := mixTolerance[g.Type]; !ok && r != 0 || ok && (r > tol || r == 0) {
			t.Errorf("%s %s (%s): rel-L2 %.3g, want ≤ %g (exact if kept)", comp, n, g.Type, r, tol)
		}
		worst[g.Type] = max(worst[g.Type], r)
	}
	t.Logf("%s: worst rel-L2 per type %v", comp, worst)
	for ty := range want {
		if _, ok := worst[ty]; !ok {
			t.Errorf("%s: no %s tensor", comp, ty)
		}
	}
}

// TestMixRule checks the Q4_K_M rule on klein-4B's names and shapes: Q6_K for the embedding
// and, in use_more_bits blocks, the value and FFN-down projections; Q4_K for the rest; Q8_0
// where rows are not whole super-blocks; kept layers and 1-D tensors untouched.
func TestMixRule(t *testing.T) {
	te := mixRule{mix: MixQ4_K_M, blocks: 36}
	tr := mixRule{mix: MixQ4_K_M, keep: keepTypes, blocks: 25, double: 5}
	cases := []struct {
		r     mixRule
		name  string
		shape []int
		want  gguf.Type
	}{
		{te, "model.embed_tokens.weight", []int{151936, 2560}, gguf.Q6_K},
		{te, "model.layers.0.self_attn.v_proj.weight", []int{1024, 2560}, gguf.Q6_K},
		{te, "model.layers.4.self_attn.v_proj.weight", []int{1024, 2560}, gguf.Q4_K},
		{te, "model.layers.6.mlp.down_proj.weight", []int{2560, 9728}, gguf.Q6_K},
		{te, "model.layers.7.mlp.down_proj.weight", []int{2560, 9728}, gguf.Q4_K},
		{te, "model.layers.31.mlp.down_proj.weight", []int{2560, 9728}, gguf.Q6_K},
		{te, "model.layers.0.self_attn.q_proj.weight", []int{4096, 2560}, gguf.Q4_K},
		{te, "model.layers.0.mlp.gate_proj.weight", []int{9728, 2560}, gguf.Q4_K},
		{te, "model.layers.0.input_layernorm.weight", []int{2560}, 0},
		{te, "model.layers.0.mlp.down_proj.weight", []int{32, 64}, gguf.Q8_0},
		{tr, "transformer_blocks.0.attn.to_v.weight", []int{3072, 3072}, gguf.Q6_K},
		{tr, "transformer_blocks.3.attn.add_v_proj.weight", []int{3072, 3072}, gguf.Q4_K},
		{tr, "transformer_blocks.0.ff.linear_out.weight", []int{3072, 9216}, gguf.Q6_K},
		{tr, "transformer_blocks.0.ff_context.linear_out.weight", []int{3072, 9216}, gguf.Q6_K},
		{tr, "transformer_blocks.4.ff.linear_in.weight", []int{18432, 3072}, gguf.Q4_K},
		{tr, "transformer_blocks.4.ff.linear_out.weight", []int{3072, 9216}, gguf.Q4_K},
		{tr, "single_transformer_blocks.0.attn.to_out.weight", []int{3072, 12288}, gguf.Q6_K}, // block 5: (5-25/8)%3 == 2
		{tr, "single_transformer_blocks.1.attn.to_out.weight", []int{3072, 12288}, gguf.Q4_K},
		{tr, "single_transformer_blocks.19.attn.to_out.weight", []int{3072, 12288}, gguf.Q6_K},
		{tr, "single_transformer_blocks.0.attn.to_qkv_mlp_proj.weight", []int{27648, 3072}, gguf.Q4_K},
		{tr, "transformer_blocks.0.attn.to_out.0.weight", []int{3072, 3072}, gguf.Q4_K},
		{tr, "x_embedder.weight", []int{3072, 128}, 0},
		{tr, "proj_out.weight", []int{128, 3072}, 0},
		{tr, "double_stream_modulation_img.linear.weight", []int{18432, 3072}, gguf.Q4_K},
		{mixRule{mix: MixQ8_0, keep: keepTypes}, "transformer_blocks.0.attn.to_v.weight", []int{3072, 3072}, gguf.Q8_0},
	}
	for _, c := range cases {
		if got := c.r.typeOf(c.name, c.shape); got != c.want {
			t.Errorf("%s %v: %v, want %v", c.name, c.shape, got, c.want)
		}
	}
	raised := 0
	for i := range 36 {
		if useMoreBits(i, 36) {
			raised++
		}
	}
	if raised != 18 { // i < 4, i ≥ 31, and i = 6, 9, ..., 30
		t.Errorf("use_more_bits holds for %d of 36 layers, want 18", raised)
	}
}

// TestQuantizeParallel: the parallel quantize gives the serial quantizers' bytes across chunk
// boundaries (2.5 chunks of blocks) for each type, and refuses a partial block.
func TestQuantizeParallel(t *testing.T) {
	v := make([]float32, 256*(4096*2+2048))
	for i := range v {
		v[i] = float32(i%251-125) * 0.01
	}
	for ty, f := range map[gguf.Type]func([]float32) ([]byte, error){gguf.Q8_0: gguf.QuantizeQ8_0, gguf.Q4_K: gguf.QuantizeQ4_KFast, gguf.Q6_K: gguf.QuantizeQ6_KFast} {
		want, err := f(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := quantize(context.Background(), ty, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: parallel bytes differ from serial (%v)", ty, err)
		}
		if _, err := quantize(context.Background(), ty, v[:len(v)-1]); err == nil {
			t.Errorf("%s: quantized a partial block", ty)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := quantize(ctx, gguf.Q8_0, v); err == nil {
		t.Error("quantized under a cancelled context")
	}
}
