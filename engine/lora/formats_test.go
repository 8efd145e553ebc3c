package lora

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// tens is one float32 tensor of a synthetic adapter file.
type tens struct {
	name  string
	shape []int
	data  []float32
}

// mat is a [rows, cols] tensor with distinct small values (seeded by the name).
func mat(name string, rows, cols int) tens {
	d := make([]float32, rows*cols)
	h := 0
	for _, c := range name {
		h = h*31 + int(c)
	}
	for i := range d {
		d[i] = float32((i*37+h)%17-8) / 16
	}
	return tens{name, []int{rows, cols}, d}
}

func scalar(name string, v float32) tens { return tens{name, []int{}, []float32{v}} }

// encode writes a safetensors image of float32 tensors.
func encode(meta map[string]string, ts ...tens) []byte {
	header := map[string]any{}
	if meta != nil {
		header["__metadata__"] = meta
	}
	var body []byte
	for _, t := range ts {
		start := len(body)
		for _, v := range t.data {
			body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
		}
		header[t.name] = map[string]any{"dtype": "F32", "shape": t.shape, "data_offsets": []int{start, len(body)}}
	}
	h, err := json.Marshal(header)
	if err != nil {
		panic(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), body...)
}

func parse(t *testing.T, meta map[string]string, ts ...tens) *Adapter {
	t.Helper()
	a, err := ParseBytes("test.safetensors", encode(meta, ts...))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func modules(a *Adapter) []string {
	var m []string
	for _, t := range a.Terms {
		m = append(m, t.Module)
	}
	return m
}

// deltaOf is ΔW of the one term (strength 1) targeting module.
func deltaOf(t *testing.T, a *Adapter, module string) []float32 {
	t.Helper()
	terms := Stack{{Adapter: a, Strength: 1}}.Modules(Transformer)[module]
	if len(terms) != 1 {
		t.Fatalf("%s: %d terms", module, len(terms))
	}
	d, err := DeltaW(terms, terms[0].Out, terms[0].In)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBFLLoraDownWithAlpha: BFL names with lora_down/lora_up and .alpha (ai-toolkit's older
// files) load as BFL, not as kohya (diffusers' routing matches nothing there), with the
// fused qkv split into q, k, v rows and scale alpha/rank.
func TestBFLLoraDownWithAlpha(t *testing.T) {
	const d, r = 8, 2
	for _, prefix := range []string{"diffusion_model.", "base_model.model."} {
		down, up := mat("down", r, d), mat("up", 3*d, r)
		a := parse(t, nil,
			tens{prefix + "double_blocks.1.img_attn.qkv.lora_down.weight", down.shape, down.data},
			tens{prefix + "double_blocks.1.img_attn.qkv.lora_up.weight", up.shape, up.data},
			scalar(prefix+"double_blocks.1.img_attn.qkv.alpha", 1))
		if a.Format != FormatBFL {
			t.Errorf("%s: format %v", prefix, a.Format)
		}
		want := []string{"transformer_blocks.1.attn.to_q", "transformer_blocks.1.attn.to_k", "transformer_blocks.1.attn.to_v"}
		if got := modules(a); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Fatalf("%s: modules %v, want %v", prefix, got, want)
		}
		full := make([]float64, 3*d*d)
		addLoRA(full, Matrix{r, d, down.data}, Matrix{3 * d, r, up.data}, 0.5)
		for j, m := range want {
			got := deltaOf(t, a, m)
			for i, v := range got {
				if v != float32(full[j*d*d+i]) {
					t.Fatalf("%s: ΔW[%d] = %v, want rows %d.. of 0.5·up·down = %v", m, i, v, j*d, full[j*d*d+i])
				}
			}
		}
	}
}

// TestKohyaBlockDiagonalQKV: a kohya qkv lora_up that is block-diagonal over rank thirds
// gives q, k, v a third of the rank each (as diffusers' converter does) and the same ΔW as the
// shared-down reading; the scale stays alpha / full rank.
func TestKohyaBlockDiagonalQKV(t *testing.T) {
	const d, r = 6, 3
	down, up := mat("down", r, d), mat("up", 3*d, r)
	for i := range 3 * d {
		for c := range r {
			if c != i/d {
				up.data[i*r+c] = 0
			}
		}
	}
	a := parse(t, nil,
		tens{"lora_unet_single_blocks_0_linear2.lora_down.weight", []int{r, d}, down.data}, // not split
		tens{"lora_unet_single_blocks_0_linear2.lora_up.weight", []int{d, r}, up.data[:d*r]},
		tens{"lora_unet_double_blocks_0_txt_attn_qkv.lora_down.weight", down.shape, down.data},
		tens{"lora_unet_double_blocks_0_txt_attn_qkv.lora_up.weight", up.shape, up.data},
		scalar("lora_unet_double_blocks_0_txt_attn_qkv.alpha", 1.5))
	if a.Format != FormatKohya || len(a.Terms) != 4 {
		t.Fatalf("format %v, modules %v", a.Format, modules(a))
	}
	full := make([]float64, 3*d*d)
	addLoRA(full, Matrix{r, d, down.data}, Matrix{3 * d, r, up.data}, 0.5)
	for j, m := range []string{"attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj"} {
		m = "transformer_blocks.0." + m
		terms := Stack{{Adapter: a, Strength: 1}}.Modules(Transformer)[m]
		if len(terms) != 1 || terms[0].Rank != 1 || terms[0].Scale != 0.5 {
			t.Fatalf("%s: %+v", m, terms)
		}
		for i, v := range deltaOf(t, a, m) {
			if v != float32(full[j*d*d+i]) {
				t.Fatalf("%s: ΔW[%d] = %v, want %v", m, i, v, full[j*d*d+i])
			}
		}
	}
	if s := a.Terms[0]; s.Module != "single_transformer_blocks.0.attn.to_out" || s.Scale != 1 {
		t.Errorf("last term %s scale %v, want single_transformer_blocks.0.attn.to_out at 1 (no alpha)", s.Module, s.Scale)
	}
}

// TestLoKrNames: LoKr under bare diffusers names (SimpleTuner), lora_transformer_ names, and
// BFL names on a fused qkv (ai-toolkit: ΔW over rows q|k|v, split by w1's rows).
func TestLoKrNames(t *testing.T) {
	w1, w2a, w2b := mat("w1", 3, 2), mat("w2a", 4, 2), mat("w2b", 2, 5)
	a := parse(t, nil,
		tens{"diffusion_model.double_blocks.0.img_attn.qkv.lokr_w1", w1.shape, w1.data},
		tens{"diffusion_model.double_blocks.0.img_attn.qkv.lokr_w2_a", w2a.shape, w2a.data},
		tens{"diffusion_model.double_blocks.0.img_attn.qkv.lokr_w2_b", w2b.shape, w2b.data},
		scalar("diffusion_model.double_blocks.0.img_attn.qkv.alpha", 1))
	full := make([]float64, 12*10)
	addKron(full, Matrix{3, 2, w1.data}, matmul(Matrix{4, 2, w2a.data}, Matrix{2, 5, w2b.data}), 0.5)
	for j, m := range []string{"to_q", "to_k", "to_v"} {
		got := deltaOf(t, a, "transformer_blocks.0.attn."+m)
		if len(got) != 4*10 {
			t.Fatalf("%s: %d values", m, len(got))
		}
		for i, v := range got {
			if v != float32(full[j*40+i]) {
				t.Fatalf("%s: ΔW[%d] = %v, want %v", m, i, v, full[j*40+i])
			}
		}
	}
	for _, c := range []struct {
		key    string
		format Format
	}{
		{"single_transformer_blocks.3.attn.to_out", FormatBare},
		{"lora_transformer_single_transformer_blocks_3_attn_to_out", FormatLyCORIS},
		{"lycoris_single_transformer_blocks_3_attn_to_out", FormatLyCORIS},
	} {
		a := parse(t, nil, tens{c.key + ".lokr_w1", w1.shape, w1.data}, tens{c.key + ".lokr_w2", w2b.shape, w2b.data}, scalar(c.key+".alpha", 7))
		if a.Format != c.format || len(a.Terms) != 1 || a.Terms[0].Module != "single_transformer_blocks.3.attn.to_out" ||
			a.Terms[0].Out != 6 || a.Terms[0].In != 10 || a.Terms[0].Scale != 1 {
			t.Errorf("%s: format %v, terms %+v", c.key, a.Format, a.Terms)
		}
	}
}

// TestDiffusersMetadata: lora_alpha, alpha_pattern (peft's suffix regex) and rsLoRA.
func TestDiffusersMetadata(t *testing.T) {
	ts := []tens{}
	for _, m := range []string{"transformer_blocks.0.attn.to_q", "transformer_blocks.0.attn.to_k", "proj_out"} {
		ts = append(ts, mat("transformer."+m+".lora_A.weight", 4, 8), mat("transformer."+m+".lora_B.weight", 8, 4))
	}
	meta := map[string]string{"lora_adapter_metadata": `{"transformer.r": 4, "transformer.lora_alpha": 8,
		"transformer.alpha_pattern": {"to_k": 2, "transformer_blocks.0.attn.to_q": 1}, "transformer.use_rslora": false}`}
	a := parse(t, meta, ts...)
	scales := map[string]float32{}
	for _, t := range a.Terms {
		scales[t.Module] = t.Scale
	}
	want := map[string]float32{"transformer_blocks.0.attn.to_q": 0.25, "transformer_blocks.0.attn.to_k": 0.5, "proj_out": 2}
	if fmt.Sprint(scales) != fmt.Sprint(want) {
		t.Errorf("scales %v, want %v", scales, want)
	}
	a = parse(t, map[string]string{"lora_adapter_metadata": `{"transformer.lora_alpha": 8, "transformer.use_rslora": true}`}, ts...)
	if a.Terms[0].Scale != 4 {
		t.Errorf("rsLoRA scale %v, want 8/√4 = 4", a.Terms[0].Scale)
	}
	a = parse(t, nil, ts...)
	if a.Terms[0].Scale != 1 {
		t.Errorf("scale without metadata %v, want 1", a.Terms[0].Scale)
	}
}

// TestTextEncoderKeys: Qwen3 modules in diffusers (text_encoder.) and kohya (lora_te1_) names.
func TestTextEncoderKeys(t *testing.T) {
	a := parse(t, nil,
		mat("text_encoder.model.layers.3.self_attn.q_proj.lora_A.weight", 2, 8), mat("text_encoder.model.layers.3.self_attn.q_proj.lora_B.weight", 16, 2),
		mat("lora_te1_model_layers_12_mlp_down_proj.lora_down.weight", 2, 24), mat("lora_te1_model_layers_12_mlp_down_proj.lora_up.weight", 8, 2),
		mat("transformer.proj_out.lora_A.weight", 2, 8), mat("transformer.proj_out.lora_B.weight", 8, 2))
	got := fmt.Sprint(modules(a))
	if got != "[proj_out model.layers.3.self_attn.q_proj model.layers.12.mlp.down_proj]" {
		t.Errorf("modules %s", got)
	}
	if s := a.Summary(); s.TextEnc != 2 || s.Transformer != 1 {
		t.Errorf("summary %+v", s)
	}
	if n := len(Stack{{Adapter: a, Strength: 1}}.Modules(TextEncoder)); n != 2 {
		t.Errorf("%d text-encoder modules", n)
	}
}

// TestBadAdapters: each bad file gives an error naming the problem (and never panics).
func TestBadAdapters(t *testing.T) {
	nan := mat("transformer.proj_out.lora_A.weight", 2, 8)
	nan.data[5] = float32(math.NaN())
	for _, c := range []struct {
		name string
		ts   []tens
		meta map[string]string
		want string
	}{
		{"no adapter tensors", []tens{mat("proj_out.weight", 4, 4)}, nil, `no LoRA or LoKr tensors of FLUX.2-klein or its Qwen3 text encoder among 1 tensors (e.g. "proj_out.weight")`},
		{"NaN", []tens{nan, mat("transformer.proj_out.lora_B.weight", 8, 2)}, nil, `tensor "transformer.proj_out.lora_A.weight" holds NaN at [0, 5]`},
		{"rank 0", []tens{{"transformer.proj_out.lora_A.weight", []int{0, 8}, nil}, {"transformer.proj_out.lora_B.weight", []int{8, 0}, nil}}, nil, "shape [0 8], outside 1..131072"},
		{"ranks differ", []tens{mat("transformer.proj_out.lora_A.weight", 2, 8), mat("transformer.proj_out.lora_B.weight", 8, 3)}, nil,
			`module "transformer.proj_out": transformer.proj_out.lora_A.weight is [2 8] and transformer.proj_out.lora_B.weight is [8 3]: the ranks 2 and 3 differ`},
		{"A without B", []tens{mat("lora_unet_img_in.lora_down.weight", 2, 8)}, nil, `module "lora_unet_img_in" has lora_A (lora_down) but no lora_B (lora_up)`},
		{"alpha alone", []tens{scalar("lora_unet_img_in.alpha", 2)}, nil, `module "lora_unet_img_in" has an alpha but no LoRA or LoKr tensors`},
		{"alpha not scalar", []tens{mat("lora_unet_img_in.alpha", 1, 2), mat("lora_unet_img_in.lora_down.weight", 2, 8), mat("lora_unet_img_in.lora_up.weight", 8, 2)}, nil, `want a scalar`},
		{"qkv not in thirds", []tens{mat("lora_unet_double_blocks_0_img_attn_qkv.lora_down.weight", 2, 8), mat("lora_unet_double_blocks_0_img_attn_qkv.lora_up.weight", 8, 2)}, nil, "not a multiple of 3"},
		{"twice", []tens{mat("transformer.proj_out.lora_A.weight", 2, 8), mat("transformer.proj_out.lora_B.weight", 8, 2),
			mat("diffusion_model.final_layer.linear.lora_A.weight", 2, 8), mat("diffusion_model.final_layer.linear.lora_B.weight", 8, 2)}, nil, "module proj_out is adapted twice"},
		{"mixed kinds", []tens{mat("proj_out.lokr_w1", 2, 2), mat("proj_out.lora_A.weight", 2, 8)}, nil, "mixes LoRA and LoKr"},
		{"LoKr half", []tens{mat("proj_out.lokr_w1", 2, 2), mat("proj_out.lokr_w2_a", 2, 2)}, nil, `LoKr needs lokr_w2, or lokr_w2_a and lokr_w2_b`},
		{"LoKr huge", []tens{mat("proj_out.lokr_w1", 2000, 1), mat("proj_out.lokr_w2", 2000, 1)}, nil, "larger than 131072"},
		{"bad metadata", []tens{mat("transformer.proj_out.lora_A.weight", 2, 8), mat("transformer.proj_out.lora_B.weight", 8, 2)},
			map[string]string{"lora_adapter_metadata": "{"}, "lora_adapter_metadata is not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBytes("bad.safetensors", encode(c.meta, c.ts...))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.safetensors") {
				t.Errorf("error %v, want one naming the file and %q", err, c.want)
			}
		})
	}
}

// TestOpenBadFiles: a truncated file, a folder named .safetensors and a model checkpoint.
func TestOpenBadFiles(t *testing.T) {
	dir := t.TempDir() + "/folder.safetensors"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	trunc := t.TempDir() + "/trunc.safetensors"
	data, err := os.ReadFile(golden.Path(t, "lora", "loras", "lora_kohya_r2_a1.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trunc, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:   "is a directory",
		trunc: "trunc.safetensors",
		golden.Path(t, "model", "tiny-flux2-klein", "transformer", "diffusion_pytorch_model.safetensors"): "no LoRA or LoKr tensors",
	} {
		_, err := Open(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want an error with %q", path, err, want)
		}
	}
}

// TestManyKeys: a 100 000-key file parses (every key adapting a distinct module).
func TestManyKeys(t *testing.T) {
	var ts []tens
	for i := range 50000 {
		m := fmt.Sprintf("transformer.transformer_blocks.%d.%s", i/len(diffusersDouble), diffusersDouble[i%len(diffusersDouble)])
		ts = append(ts, tens{m + ".lora_A.weight", []int{1, 1}, []float32{1}}, tens{m + ".lora_B.weight", []int{1, 1}, []float32{1}})
	}
	a := parse(t, nil, ts...)
	if len(a.Terms) != 50000 {
		t.Errorf("%d terms", len(a.Terms))
	}
}

// TestCheck: the fit check against the tiny model's layers.
func TestCheck(t *testing.T) {
	layers := map[Component]Layers{Transformer: {"transformer_blocks.0.attn.to_q": {64, 64}, "transformer_blocks.0.attn.to_out.0": {64, 64}, "proj_out": {128, 64}}}
	ok := parse(t, nil, mat("transformer.proj_out.lora_A.weight", 2, 64), mat("transformer.proj_out.lora_B.weight", 128, 2))
	if err := ok.Check(layers, false); err != nil {
		t.Errorf("fitting adapter: %v", err)
	}
	// A 9B adapter (width 4096) on a smaller model.
	big := parse(t, nil, mat("diffusion_model.double_blocks.0.img_attn.proj.lora_A.weight", 1, 4096), mat("diffusion_model.double_blocks.0.img_attn.proj.lora_B.weight", 4096, 1))
	err := big.Check(layers, true)
	want := "lora: test.safetensors (made for FLUX.2-klein 9B) does not fit this model: 1 layers differ in shape: transformer_blocks.0.attn.to_out.0: adapter [4096, 4096], model [64, 64]"
	if err == nil || err.Error() != want {
		t.Errorf("9B adapter: %v\nwant %s", err, want)
	}
	// A FLUX.1 adapter: its modulation keys match nothing.
	f1 := parse(t, nil, mat("diffusion_model.double_blocks.0.img_attn.qkv.lora_A.weight", 1, 64), mat("diffusion_model.double_blocks.0.img_attn.qkv.lora_B.weight", 192, 1),
		mat("diffusion_model.double_blocks.0.img_mod.lin.lora_A.weight", 1, 64), mat("diffusion_model.double_blocks.0.img_mod.lin.lora_B.weight", 384, 1),
		mat("diffusion_model.double_blocks.0.img_attn.qkv.dora_scale", 1, 192))
	err = f1.Check(layers, false)
	if err == nil || !strings.Contains(err.Error(), "(made for FLUX.1)") || !strings.Contains(err.Error(), "3 keys match nothing") ||
		!strings.Contains(err.Error(), "2 modules are not in the model: transformer transformer_blocks.0.attn.to_k") {
		t.Errorf("FLUX.1 adapter: %v", err)
	}
	var fe *FitError
	if !errors.As(err, &fe) || len(fe.Unmatched) != 3 {
		t.Errorf("want a *FitError with 3 unmatched keys, got %v", err)
	}
	// Partial: the missing modules and unmatched keys are accepted, nothing else.
	if err := f1.Check(layers, true); err != nil {
		t.Errorf("partial: %v", err)
	}
}

// TestSummaryMetadata: name, base model and trigger words from modelspec.* and ss_* metadata.
func TestSummaryMetadata(t *testing.T) {
	ts := []tens{mat("lora_unet_img_in.lora_down.weight", 2, 8), mat("lora_unet_img_in.lora_up.weight", 16, 2)}
	a := parse(t, map[string]string{"ss_output_name": "cats", "ss_base_model_version": "flux2_klein_4b",
		"ss_tag_frequency": `{"ds1": {"cat": 3, " sks": 9}, "ds2": {"cat": 7, "hat": 1}}`}, ts...)
	s := a.Summary()
	if s.Name != "cats" || s.BaseModel != "flux2_klein_4b" || fmt.Sprint(s.Triggers) != "[cat sks hat]" || s.Hidden != 16 {
		t.Errorf("summary %+v", s)
	}
	a = parse(t, map[string]string{"modelspec.title": "Cats", "modelspec.trigger_phrase": "sks cat, wearing hat ,", "ss_output_name": "x"}, ts...)
	if s := a.Summary(); s.Name != "Cats" || fmt.Sprint(s.Triggers) != "[sks cat wearing hat]" {
		t.Errorf("summary %+v", s)
	}
	if n := a.Bytes(); n != 4*(2*8+16*2) {
		t.Errorf("Bytes %d", n)
	}
	if f := (Stack{{Adapter: a, Strength: 1}}).FLOPsPerToken(Transformer); f != 2*2*(8+16) {
		t.Errorf("FLOPs %v", f)
	}
}
