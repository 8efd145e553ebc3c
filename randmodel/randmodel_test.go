package randmodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/engine"
	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/vae"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// tinyModel writes the tiny variant with the given seed into a temp folder.
func tinyModel(t *testing.T, seed uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if _, err := Create(context.Background(), dir, Options{Variant: Tiny, Seed: seed, Tokenizer: golden.TinyModel(t)}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// allFiles lists the regular files under dir (relative paths).
func allFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTinyLayout: the tiny variant reproduces the golden tiny model's folder: byte-identical
// configs, the same tensors (names, shapes, dtypes), a Hugging Face style sharded text
// encoder, and every part loads.
func TestTinyLayout(t *testing.T) {
	dir := tinyModel(t, 7)
	ref := golden.TinyModel(t)

	wantFiles := []string{
		"model_index.json", Marker, "scheduler/scheduler_config.json",
		"text_encoder/config.json", "text_encoder/" + indexFile, "text_encoder/" + shard1, "text_encoder/" + shard2,
		"tokenizer/tokenizer.json", "tokenizer/tokenizer_config.json",
		"transformer/config.json", "transformer/diffusion_pytorch_model.safetensors",
		"vae/config.json", "vae/diffusion_pytorch_model.safetensors",
	}
	got := allFiles(t, dir)
	slices.Sort(got)
	slices.Sort(wantFiles)
	if !slices.Equal(got, wantFiles) {
		t.Errorf("files\n%v\nwant\n%v", got, wantFiles)
	}

	for _, rel := range []string{"model_index.json", "scheduler/scheduler_config.json", "text_encoder/config.json",
		"transformer/config.json", "vae/config.json", "tokenizer/tokenizer.json", "tokenizer/tokenizer_config.json"} {
		a, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(ref, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the golden tiny model's:\n%s\nwant\n%s", rel, a, b)
		}
	}
	if _, err := qwen3.LoadConfig(filepath.Join(dir, "text_encoder", "config.json")); err != nil {
		t.Error(err)
	}
	if _, err := flux2.LoadConfig(filepath.Join(dir, "transformer", "config.json")); err != nil {
		t.Error(err)
	}
	if _, err := vae.LoadConfig(filepath.Join(dir, "vae", "config.json")); err != nil {
		t.Error(err)
	}

	info, err := engine.Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.OK() || !info.Distilled || info.DefaultSteps != 4 {
		t.Errorf("Inspect: %+v", info)
	}

	// Same tensors as the golden checkpoints, per component.
	for _, sub := range []string{"text_encoder", "transformer", "vae"} {
		describe := func(d string) []string {
			ck, err := weights.Open(filepath.Join(d, sub))
			if err != nil {
				t.Fatal(err)
			}
			defer ck.Close()
			var out []string
			for _, name := range ck.Names() {
				tn, err := ck.Tensor(name)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, fmt.Sprint(name, " ", tn.DType, " ", tn.Shape))
			}
			slices.Sort(out)
			return out
		}
		if g, w := describe(dir), describe(ref); !slices.Equal(g, w) {
			t.Errorf("%s: %d tensors differ from the golden %d", sub, len(g), len(w))
		}
	}

	// The index is shaped like transformers writes it and agrees with the shards.
	raw, err := os.ReadFile(filepath.Join(dir, "text_encoder", indexFile))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Metadata struct {
			TotalSize       *int64 `json:"total_size"`
			TotalParameters *int64 `json:"total_parameters"`
		} `json:"metadata"`
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	var size, params int64
	seen := map[string]bool{}
	for _, shard := range []string{shard1, shard2} {
		f, err := weights.OpenFile(filepath.Join(dir, "text_encoder", shard))
		if err != nil {
			t.Fatal(err)
		}
		if f.Metadata["format"] != "pt" {
			t.Errorf("%s: metadata %v, want format pt", shard, f.Metadata)
		}
		names := f.Names()
		if len(names) == 0 {
			t.Errorf("%s is empty", shard)
		}
		for _, name := range names {
			tn, _ := f.Tensor(name)
			size += int64(len(tn.Bytes()))
			params += int64(tn.Numel())
			seen[name] = true
			if idx.WeightMap[name] != shard {
				t.Errorf("index maps %s to %q, it is in %s", name, idx.WeightMap[name], shard)
			}
		}
		f.Close()
	}
	if len(idx.WeightMap) != len(seen) {
		t.Errorf("index lists %d tensors, the shards hold %d", len(idx.WeightMap), len(seen))
	}
	if idx.Metadata.TotalSize == nil || *idx.Metadata.TotalSize != size {
		t.Errorf("metadata.total_size %v, want %d", idx.Metadata.TotalSize, size)
	}
	if idx.Metadata.TotalParameters == nil || *idx.Metadata.TotalParameters != params {
		t.Errorf("metadata.total_parameters %v, want %d", idx.Metadata.TotalParameters, params)
	}

	f, err := weights.OpenFile(filepath.Join(dir, "vae", "diffusion_pytorch_model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, _ := golden.I64(t, f, "bn.num_batches_tracked"); len(n) != 1 || n[0] != 1000 {
		t.Errorf("bn.num_batches_tracked = %v, want [1000]", n)
	}

	if err := Check(dir, Options{Variant: Tiny, Seed: 7}); err != nil {
		t.Errorf("Check: %v", err)
	}
	for _, o := range []Options{{Variant: Tiny, Seed: 8}, {Variant: Klein4B, Seed: 7}, {Variant: Tiny, Seed: 7, Base: true}} {
		if err := Check(dir, o); err == nil {
			t.Errorf("Check(%+v) accepted a model written with seed 7, tiny, distilled", o)
		}
	}
}

// TestValuesFollowGoldenRecipe compares every tensor's mean and standard deviation with the
// golden tiny model's (same recipe, normal instead of uniform noise): they must agree to
// sampling error.
func TestValuesFollowGoldenRecipe(t *testing.T) {
	dir := tinyModel(t, 3)
	ref := golden.TinyModel(t)
	for _, sub := range []string{"text_encoder", "transformer", "vae"} {
		ours, err := weights.Open(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := weights.Open(filepath.Join(ref, sub))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, name := range theirs.Names() {
			a, _ := ours.Tensor(name)
			b, _ := theirs.Tensor(name)
			if b.DType != weights.BF16 || b.Numel() < 512 {
				continue // too few values for a tight comparison
			}
			va, _ := a.Float32()
			vb, _ := b.Float32()
			ma, sa := meanStd(va)
			mb, sb := meanStd(vb)
			n := float64(len(va))
			// Sampling error of the mean is sd/sqrt(n); of the sd about sd/sqrt(2n). Allow 6σ.
			if math.Abs(ma-mb) > 6*sb*math.Sqrt(2/n)+1e-3*math.Abs(mb) || math.Abs(sa-sb) > 6*sb*math.Sqrt(1/n)+0.01*sb {
				t.Errorf("%s/%s: mean %.4g sd %.4g, golden mean %.4g sd %.4g (n=%d)", sub, name, ma, sa, mb, sb, len(va))
			}
			checked++
		}
		ours.Close()
		theirs.Close()
		if checked < 10 {
			t.Errorf("%s: only %d tensors compared", sub, checked)
		}
	}
}

func meanStd(v []float32) (mean, sd float64) {
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	for _, x := range v {
		d := float64(x) - mean
		sd += d * d
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}

// TestDeterministic: the same seed gives byte-identical folders, another seed different
// weights (and identical configs).
func TestDeterministic(t *testing.T) {
	a, b, c := tinyModel(t, 42), tinyModel(t, 42), tinyModel(t, 43)
	files := allFiles(t, a)
	for _, rel := range files {
		fa, _ := os.ReadFile(filepath.Join(a, rel))
		fb, _ := os.ReadFile(filepath.Join(b, rel))
		fc, _ := os.ReadFile(filepath.Join(c, rel))
		if !bytes.Equal(fa, fb) {
			t.Errorf("%s differs between two runs with seed 42", rel)
		}
		weightsFile := strings.HasSuffix(rel, ".safetensors")
		if same := bytes.Equal(fa, fc); same == weightsFile && rel != Marker {
			t.Errorf("%s: identical for seeds 42 and 43 = %v, want %v", rel, same, !weightsFile)
		}
	}
}

// TestTinyGenerates runs the real engine on the random tiny model: the image must be finite
// and not constant.
func TestTinyGenerates(t *testing.T) {
	m, err := engine.Open(tinyModel(t, 1), backends.Default(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var pix []float32
	req := engine.Request{Settings: engine.Settings{Prompt: "A red cube on a blue table", Width: 64, Height: 64, Seed: 5},
		Dump: func(name string, _ []int, data []float32) error {
			for i, v := range data {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return fmt.Errorf("%s: non-finite value %g at %d", name, v, i)
				}
			}
			if name == "image" {
				pix = append([]float32(nil), data...)
			}
			return nil
		}}
	res, err := m.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.WidthPx != 64 || res.HeightPx != 64 || len(pix) != 3*64*64 {
		t.Fatalf("image %d×%d with %d values", res.WidthPx, res.HeightPx, len(pix))
	}
	_, sd := meanStd(pix)
	if !(sd > 0.01) {
		t.Errorf("decoded image has standard deviation %g: constant", sd)
	}
	lo, hi := slices.Min(res.Image.Pix), slices.Max(res.Image.Pix)
	if lo == hi {
		t.Errorf("8-bit image is constant (%d)", lo)
	}
	t.Logf("image sd %.3f, 8-bit range %d..%d", sd, lo, hi)
}

// TestCreateRefuses: a foreign non-empty folder, a missing tokenizer, an unknown variant and a
// cancelled context are errors, and a cancelled run leaves no temporary files.
func TestCreateRefuses(t *testing.T) {
	tok := golden.TinyModel(t)
	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Create(context.Background(), foreign, Options{Variant: Tiny, Tokenizer: tok}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("foreign folder: %v", err)
	}
	if _, err := Create(context.Background(), t.TempDir(), Options{Variant: Tiny, Tokenizer: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("no tokenizer: %v", err)
	}
	if _, err := Create(context.Background(), t.TempDir(), Options{Variant: "klein-2b", Tokenizer: tok}); err == nil {
		t.Error("unknown variant accepted")
	}
	if _, err := ParseVariant("KLEIN-4B"); err != nil {
		t.Error(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	dir := filepath.Join(t.TempDir(), "m")
	opts := Options{Variant: Tiny, Tokenizer: tok, Progress: func(file string, done, total int64) {
		if done > total/3 {
			cancel()
		}
	}}
	if _, err := Create(ctx, dir, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
	for _, rel := range allFiles(t, dir) {
		if strings.Contains(rel, ".tmp-") {
			t.Errorf("temporary file %s left behind", rel)
		}
	}
	if err := Check(dir, Options{Variant: Tiny}); err == nil {
		t.Error("Check accepted an interrupted folder")
	}
	// The interrupted folder can be completed.
	opts.Progress = nil
	if _, err := Create(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, Options{Variant: Tiny}); err != nil {
		t.Error(err)
	}
}

// TestRecipe pins the tensor classification and the uniform draw's moments.
func TestRecipe(t *testing.T) {
	cases := []struct {
		name       string
		shape      []int
		mean, std  float64
		kind       ruleKind
		constValue int64
	}{
		{"model.embed_tokens.weight", []int{151936, 2560}, 0, 1, ruleUniform, 0},
		{"model.layers.0.mlp.down_proj.weight", []int{2560, 9728}, 0, 1 / math.Sqrt(9728), ruleUniform, 0},
		{"model.layers.3.self_attn.q_norm.weight", []int{128}, 1, 0.1, ruleUniform, 0},
		{"double_stream_modulation_img.linear.weight", []int{18432, 3072}, 0, 1.7 / math.Sqrt(3072), ruleUniform, 0},
		{"norm_out.linear.weight", []int{6144, 3072}, 0, 1.7 / math.Sqrt(3072), ruleUniform, 0},
		{"time_guidance_embed.timestep_embedder.linear_2.weight", []int{3072, 3072}, 0, 2 / math.Sqrt(3072), ruleUniform, 0},
		{"decoder.conv_out.weight", []int{3, 128, 3, 3}, 0, 0.5 / math.Sqrt(128*9), ruleUniform, 0},
		{"decoder.up_blocks.0.resnets.0.conv1.weight", []int{512, 512, 3, 3}, 0, 1 / math.Sqrt(512*9), ruleUniform, 0},
		{"decoder.up_blocks.0.resnets.0.conv1.bias", []int{512}, 0, 0.02, ruleUniform, 0},
		{"decoder.up_blocks.0.resnets.0.norm1.bias", []int{512}, 0, 0.05, ruleUniform, 0},
		{"encoder.mid_block.attentions.0.group_norm.bias", []int{512}, 0, 0.05, ruleUniform, 0},
		{"decoder.conv_norm_out.weight", []int{128}, 1, 0.1, ruleUniform, 0},
		{"bn.running_mean", []int{128}, 0, 0.5, ruleUniform, 0},
		{"bn.running_var", []int{128}, 0, 0.5, ruleLogUniform, 0},
		{"bn.num_batches_tracked", []int{}, 0, 0, ruleConstI64, 1000},
	}
	for _, c := range cases {
		r := ruleFor(c.name, c.shape)
		if r.kind != c.kind || math.Abs(r.mean-c.mean) > 1e-12 || math.Abs(r.std-c.std) > 1e-12*c.std || r.i64 != c.constValue {
			t.Errorf("%s: rule %+v, want kind %d mean %g std %g", c.name, r, c.kind, c.mean, c.std)
		}
	}

	// Draw 1M values (odd range bounds exercise head and tail); moments to sampling error.
	const n = 1 << 20
	buf := make([]byte, 2*n)
	r := rule{kind: ruleUniform, mean: 0.25, std: 0.5}
	fillBF16(buf, 99, r, 3, 3+n)
	vals := make([]float32, n)
	u16 := make([]uint16, n)
	for i := range u16 {
		u16[i] = uint16(buf[2*i]) | uint16(buf[2*i+1])<<8
	}
	weights.BF16ToF32(vals, u16)
	m, sd := meanStd(vals)
	if math.Abs(m-0.25) > 6*0.5/math.Sqrt(n) || math.Abs(sd-0.5) > 0.005 {
		t.Errorf("uniform draw: mean %g sd %g, want 0.25, 0.5", m, sd)
	}
	if lo, hi := slices.Min(vals), slices.Max(vals); float64(lo) < 0.25-0.5*sqrt3-0.01 || float64(hi) > 0.25+0.5*sqrt3+0.01 {
		t.Errorf("uniform draw range %g..%g, want within 0.25 ± %g", lo, hi, 0.5*sqrt3)
	}
	// Chunking does not change values: the same range in two pieces.
	buf2 := make([]byte, 2*n)
	fillBF16(buf2[:2*1001], 99, r, 3, 1004)
	fillBF16(buf2[2*1001:], 99, r, 1004, 3+n)
	if !bytes.Equal(buf, buf2) {
		t.Error("values depend on how the range is split")
	}
}

// TestFullSizePlans plans the real-size folders without writing weights: file sizes match
// the real checkpoints (SPEC.md: transformer ~7.75 GB for klein-4B, VAE ~168 MB, text encoder
// ~8 GB in two similar shards), and only Qwen3-8B stores an untied lm_head.
func TestFullSizePlans(t *testing.T) {
	cases := []struct {
		v                          Variant
		te, transformer, vae       float64 // GB
		transformerParams, teParam float64
		lmHead                     bool
	}{
		{Klein4B, 8.04, 7.75, 0.168, 3.88e9, 4.02e9, false},
		{Klein9B, 16.4, 18.16, 0.168, 9.08e9, 8.19e9, true}, // d 4096: 8·436M + 24·218M + 303M once-per-pass + 51M embedders
	}
	for _, c := range cases {
		t.Run(string(c.v), func(t *testing.T) {
			dir := t.TempDir()
			if err := prepareDir(dir); err != nil {
				t.Fatal(err)
			}
			if err := writeConfigs(dir, dims[c.v], false); err != nil {
				t.Fatal(err)
			}
			files, index, err := plan(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			size := map[string]float64{}
			params := map[string]float64{}
			hasLMHead := false
			for _, f := range files {
				comp := strings.SplitN(f.rel, "/", 2)[0]
				size[comp] += float64(f.size()) / 1e9
				for _, tn := range f.tensors {
					params[comp] += float64(tn.numel)
					hasLMHead = hasLMHead || tn.name == "lm_head.weight"
				}
				if int64(len(f.header))%8 != 0 {
					t.Errorf("%s: header of %d bytes is not 8-byte aligned", f.rel, len(f.header))
				}
			}
			for comp, want := range map[string]float64{"text_encoder": c.te, "transformer": c.transformer, "vae": c.vae} {
				if math.Abs(size[comp]-want) > 0.01*want {
					t.Errorf("%s: %.3f GB, want about %.3f", comp, size[comp], want)
				}
			}
			if math.Abs(params["transformer"]-c.transformerParams) > 0.01*c.transformerParams ||
				math.Abs(params["text_encoder"]-c.teParam) > 0.01*c.teParam {
				t.Errorf("parameters: transformer %.4g, text encoder %.4g", params["transformer"], params["text_encoder"])
			}
			if hasLMHead != c.lmHead {
				t.Errorf("lm_head.weight present %v, want %v", hasLMHead, c.lmHead)
			}
			if s1, s2 := files[0].size(), files[1].size(); math.Abs(float64(s1-s2)) > 0.25*float64(s1+s2) {
				t.Errorf("text encoder shards of %d and %d bytes: not balanced", s1, s2)
			}
			var idx struct {
				WeightMap map[string]string `json:"weight_map"`
			}
			if err := json.Unmarshal(index, &idx); err != nil || len(idx.WeightMap) != len(files[0].tensors)+len(files[1].tensors) {
				t.Errorf("index: %v, %d entries", err, len(idx.WeightMap))
			}
		})
	}
}
