package weights_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// goldenFiles lists every *.safetensors file under the golden folder.
func goldenFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(golden.Dir(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".safetensors") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("found only %d safetensors files under %s", len(files), golden.Dir(t))
	}
	return files
}

// sidecar is the part of a golden *.json sidecar that describes the tensors.
type sidecar struct {
	Tensors map[string]struct {
		DType string `json:"dtype"`
		Shape []int  `json:"shape"`
	} `json:"tensors"`
	NumTokens        int     `json:"num_tokens"`
	PadTokenID       int64   `json:"pad_token_id"`
	TokenIDsUnpadded []int64 `json:"token_ids_unpadded"`
}

func readSidecar(t testing.TB, path string) (*sidecar, bool) {
	t.Helper()
	raw, err := os.ReadFile(strings.TrimSuffix(path, ".safetensors") + ".json")
	if os.IsNotExist(err) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var sc sidecar
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &sc, true
}

var sidecarDTypes = map[string]weights.DType{"float32": weights.F32, "int64": weights.I64, "uint8": weights.U8}

// TestOpenGoldenFiles opens every golden safetensors file as a checkpoint, checks names,
// dtypes and shapes against the JSON sidecar where there is one, and reads every tensor.
func TestOpenGoldenFiles(t *testing.T) {
	files := goldenFiles(t)
	withSidecar := 0
	for _, p := range files {
		rel, _ := filepath.Rel(golden.Dir(t), p)
		t.Run(rel, func(t *testing.T) {
			c, err := weights.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			names := c.Names()
			if len(names) == 0 || !slices.IsSorted(names) {
				t.Fatalf("names %v: empty or unsorted", names)
			}
			for _, n := range names {
				checkReadable(t, c, n)
			}
			sc, ok := readSidecar(t, p)
			if !ok || sc.Tensors == nil {
				return
			}
			withSidecar++
			if len(sc.Tensors) != len(names) {
				t.Errorf("%d tensors, sidecar lists %d", len(names), len(sc.Tensors))
			}
			for n, want := range sc.Tensors {
				tn, err := c.TensorShape(n, want.Shape...)
				if err != nil {
					t.Error(err)
					continue
				}
				if tn.DType != sidecarDTypes[want.DType] {
					t.Errorf("%s: dtype %s, sidecar says %s", n, tn.DType, want.DType)
				}
			}
		})
	}
	if withSidecar < 25 {
		t.Errorf("only %d files were checked against a sidecar", withSidecar)
	}
}

// checkReadable reads a tensor through the accessor of its dtype and checks the element
// count and that float values are finite.
func checkReadable(t *testing.T, c *weights.Checkpoint, name string) {
	t.Helper()
	tn, err := c.Tensor(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(tn.Bytes()) != tn.Numel()*tn.DType.Size() {
		t.Fatalf("%s: %d bytes for %d %s elements", name, len(tn.Bytes()), tn.Numel(), tn.DType)
	}
	switch tn.DType {
	case weights.F32, weights.BF16, weights.F16:
		v, err := tn.Float32()
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != tn.Numel() {
			t.Fatalf("%s: %d values for %d elements", name, len(v), tn.Numel())
		}
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%s[%d] = %v", name, i, x)
			}
		}
	case weights.I64:
		if v, err := tn.Int64(); err != nil || len(v) != tn.Numel() {
			t.Fatalf("%s: %d values, %v", name, len(v), err)
		}
		if _, err := tn.Float32(); err == nil {
			t.Errorf("%s: Float32 of an I64 tensor did not fail", name)
		}
	case weights.U8:
		if v, err := tn.Uint8(); err != nil || len(v) != tn.Numel() {
			t.Fatalf("%s: %d values, %v", name, len(v), err)
		}
	}
}

type modelConfig struct {
	HiddenSize        int `json:"hidden_size"`
	IntermediateSize  int `json:"intermediate_size"`
	NumLayers         int `json:"num_hidden_layers"`
	NumHeads          int `json:"num_attention_heads"`
	NumKVHeads        int `json:"num_key_value_heads"`
	HeadDim           int `json:"head_dim"`
	VocabSize         int `json:"vocab_size"`
	JointAttentionDim int `json:"joint_attention_dim"`
	InChannels        int `json:"in_channels"`
}

func readConfig(t *testing.T, dir string) modelConfig {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg modelConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func openModel(t *testing.T, sub string) (*weights.Checkpoint, string) {
	t.Helper()
	dir := filepath.Join(golden.TinyModel(t), sub)
	c, err := weights.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, dir
}

// TestModelFolders opens the three model folders of the tiny checkpoint and checks tensor
// counts, dtypes, metadata and the shapes implied by the configs.
func TestModelFolders(t *testing.T) {
	t.Run("text_encoder", func(t *testing.T) {
		c, dir := openModel(t, "text_encoder")
		cfg := readConfig(t, dir)
		if got, want := len(c.Names()), 2+11*cfg.NumLayers; got != want {
			t.Errorf("%d tensors, want %d", got, want)
		}
		mustShape(t, c, "model.embed_tokens.weight", cfg.VocabSize, cfg.HiddenSize)
		mustShape(t, c, "model.norm.weight", cfg.HiddenSize)
		q, kv := cfg.NumHeads*cfg.HeadDim, cfg.NumKVHeads*cfg.HeadDim
		for l := range cfg.NumLayers {
			p := fmt.Sprintf("model.layers.%d.", l)
			mustShape(t, c, p+"self_attn.q_proj.weight", q, cfg.HiddenSize)
			mustShape(t, c, p+"self_attn.k_proj.weight", kv, cfg.HiddenSize)
			mustShape(t, c, p+"self_attn.v_proj.weight", kv, cfg.HiddenSize)
			mustShape(t, c, p+"self_attn.o_proj.weight", cfg.HiddenSize, q)
			mustShape(t, c, p+"self_attn.q_norm.weight", cfg.HeadDim)
			mustShape(t, c, p+"mlp.gate_proj.weight", cfg.IntermediateSize, cfg.HiddenSize)
			mustShape(t, c, p+"mlp.down_proj.weight", cfg.HiddenSize, cfg.IntermediateSize)
		}
		if c.Has(fmt.Sprintf("model.layers.%d.input_layernorm.weight", cfg.NumLayers)) {
			t.Error("more layers than the config says")
		}
		if c.Has("lm_head.weight") {
			t.Error("tied lm_head.weight is stored")
		}
		// Norm scales were drawn as 1 + 0.1 N(0, 1).
		v, err := mustShape(t, c, "model.norm.weight", cfg.HiddenSize).Float32()
		if err != nil {
			t.Fatal(err)
		}
		if m := mean(v); math.Abs(m-1) > 0.1 {
			t.Errorf("model.norm.weight mean %.3f, want about 1", m)
		}
	})
	t.Run("transformer", func(t *testing.T) {
		c, dir := openModel(t, "transformer")
		cfg := readConfig(t, dir)
		if got := len(c.Names()); got != 49 {
			t.Errorf("%d tensors, want 49", got)
		}
		mustShape(t, c, "context_embedder.weight", 64, cfg.JointAttentionDim)
		mustShape(t, c, "x_embedder.weight", 64, cfg.InChannels)
		mustShape(t, c, "proj_out.weight", cfg.InChannels, 64)
		mustShape(t, c, "single_transformer_blocks.1.attn.to_qkv_mlp_proj.weight", 576, 64)
		mustShape(t, c, "transformer_blocks.0.ff.linear_out.weight", 64, 192)
	})
	t.Run("vae", func(t *testing.T) {
		c, _ := openModel(t, "vae")
		if got := len(c.Names()); got != 251 {
			t.Errorf("%d tensors, want 251", got)
		}
		nb := mustShape(t, c, "bn.num_batches_tracked")
		if nb.DType != weights.I64 || nb.Numel() != 1 || len(nb.Shape) != 0 {
			t.Fatalf("bn.num_batches_tracked: %s %v, want an I64 scalar", nb.DType, nb.Shape)
		}
		if v, err := nb.Int64(); err != nil || v[0] != 1000 {
			t.Errorf("bn.num_batches_tracked = %v (%v), want 1000", v, err)
		}
		mustShape(t, c, "decoder.conv_out.weight", 3, 16, 3, 3)
		mustShape(t, c, "quant_conv.weight", 64, 64, 1, 1)
		rv, err := mustShape(t, c, "bn.running_var", 128).Float32()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range rv {
			if !(x > 0) { // drawn as exp(N(0, 0.5))
				t.Fatalf("bn.running_var[%d] = %v", i, x)
			}
		}
	})
	for _, sub := range []string{"text_encoder", "transformer", "vae"} {
		c, _ := openModel(t, sub)
		fs := c.Files()
		if len(fs) != 1 {
			t.Errorf("%s: files %v", sub, fs)
		}
		f, err := weights.OpenFile(fs[0])
		if err != nil {
			t.Fatal(err)
		}
		if f.Metadata["format"] != "pt" {
			t.Errorf("%s: metadata %v, want format pt", sub, f.Metadata)
		}
		f.Close()
	}
}

func mustShape(t *testing.T, c *weights.Checkpoint, name string, shape ...int) *weights.Tensor {
	t.Helper()
	tn, err := c.TensorShape(name, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func mean(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}

// TestBF16TensorsConvert checks that every BF16 tensor of the tiny model converts to float32
// exactly as the bit pattern shifted left by 16, through both Float32 and ReadFloat32.
func TestBF16TensorsConvert(t *testing.T) {
	total := 0
	for _, sub := range []string{"text_encoder", "transformer", "vae"} {
		c, _ := openModel(t, sub)
		for _, n := range c.Names() {
			tn, _ := c.Tensor(n)
			if tn.DType != weights.BF16 {
				continue
			}
			got, err := tn.Float32()
			if err != nil {
				t.Fatal(err)
			}
			bits, err := tn.BF16()
			if err != nil {
				t.Fatal(err)
			}
			raw := tn.Bytes()
			if len(bits) != tn.Numel() || len(got) != tn.Numel() {
				t.Fatalf("%s: %d bits, %d floats for %d elements", n, len(bits), len(got), tn.Numel())
			}
			for i := range got {
				u := binary.LittleEndian.Uint16(raw[2*i:])
				if bits[i] != u || math.Float32bits(got[i]) != uint32(u)<<16 {
					t.Fatalf("%s[%d]: bits %#04x, float %v (%#08x), file has %#04x", n, i, bits[i], got[i], math.Float32bits(got[i]), u)
				}
			}
			total += len(got)
		}
	}
	t.Logf("%d BF16 values checked bit-exactly", total)
	if total < 5_000_000 {
		t.Errorf("only %d BF16 values", total)
	}
}

// TestQwen3Prompts checks the token ids and masks of the four prompts against the sidecars
// (and the first ids against the README), and that hidden_states[0] of prompt 0 is exactly
// the BF16 embedding rows of its ids: a cross-check of I64, F32 and BF16 reading.
func TestQwen3Prompts(t *testing.T) {
	wantTokens := []int{19, 39, 42, 12} // README: the empty prompt still yields 12 real tokens
	for k, nTok := range wantTokens {
		p := golden.Path(t, "qwen3", fmt.Sprintf("qwen3_prompt%d.safetensors", k))
		f := golden.Open(t, filepath.Join("qwen3", filepath.Base(p)))
		ids, shape := golden.I64(t, f, "input_ids")
		mask, mshape := golden.I64(t, f, "attention_mask")
		if !slices.Equal(shape, []int{1, 512}) || !slices.Equal(mshape, []int{1, 512}) {
			t.Fatalf("prompt %d: shapes %v %v", k, shape, mshape)
		}
		if !slices.Equal(ids[:3], []int64{151644, 872, 198}) { // <|im_start|> user \n
			t.Errorf("prompt %d: ids begin %v", k, ids[:3])
		}
		sc, _ := readSidecar(t, p)
		if sc.NumTokens != nTok || !slices.Equal(ids[:nTok], sc.TokenIDsUnpadded) {
			t.Errorf("prompt %d: ids %v, sidecar %v (%d tokens)", k, ids[:nTok], sc.TokenIDsUnpadded, sc.NumTokens)
		}
		var sum int64
		for i, m := range mask {
			sum += m
			if want := int64(b2i(i < nTok)); m != want {
				t.Fatalf("prompt %d: attention_mask[%d] = %d, want %d", k, i, m, want)
			}
			if i >= nTok && ids[i] != sc.PadTokenID {
				t.Fatalf("prompt %d: input_ids[%d] = %d, want pad %d", k, i, ids[i], sc.PadTokenID)
			}
		}
		if sum != int64(nTok) {
			t.Errorf("prompt %d: attention_mask sums to %d, want %d", k, sum, nTok)
		}
	}

	f := golden.Open(t, "qwen3/qwen3_prompt0.safetensors")
	ids, _ := golden.I64(t, f, "input_ids")
	hs, hshape := golden.F32(t, f, "hidden_states")
	if !slices.Equal(hshape, []int{29, 1, 512, 32}) {
		t.Fatalf("hidden_states shape %v", hshape)
	}
	c, _ := openModel(t, "text_encoder")
	emb, err := mustShape(t, c, "model.embed_tokens.weight", 151936, 32).Float32()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 0, 512*32)
	for _, id := range ids {
		got = append(got, emb[id*32:(id+1)*32]...)
	}
	golden.Compare(t, "embed_tokens[input_ids] vs hidden_states[0]", got, hs[:512*32], 0)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestVAEBatchNormGolden recomputes the pipeline's bn (de)normalisation from the model's BF16
// running statistics and compares it with the stored reference tensors.
func TestVAEBatchNormGolden(t *testing.T) {
	c, _ := openModel(t, "vae")
	rm, _ := mustShape(t, c, "bn.running_mean", 128).Float32()
	rv, _ := mustShape(t, c, "bn.running_var", 128).Float32()
	const eps = 1e-4 // batch_norm_eps
	for _, tc := range []struct{ file, in, out string }{
		{"vae/decode_32x48.safetensors", "unpacked", "bn_denormalized"},
		{"vae/encode_48x80.safetensors", "patchified", "image_latents"},
	} {
		f := golden.Open(t, tc.file)
		x, shape := golden.F32(t, f, tc.in)
		want, _ := golden.F32(t, f, tc.out)
		hw := shape[2] * shape[3]
		got := make([]float32, len(x))
		for i, v := range x {
			ch := i / hw % 128
			s := float32(math.Sqrt(float64(rv[ch] + eps)))
			if tc.out == "bn_denormalized" {
				got[i] = v*s + rm[ch]
			} else {
				got[i] = (v - rm[ch]) / s
			}
		}
		golden.Compare(t, tc.file+" "+tc.out, got, want, 1e-6)
	}
}
