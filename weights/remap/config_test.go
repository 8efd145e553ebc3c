package remap_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
	"kleinbild/weights/remap"
)

// folderConfig reads a golden tiny model config.json.
func folderConfig(t *testing.T, dir string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(golden.TinyModel(t) + "/" + dir + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sameConfig requires every key of the inferred config to have the golden config's value.
func sameConfig(t *testing.T, what string, got []byte, err error, want map[string]any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		if w, ok := want[k]; !ok || !reflect.DeepEqual(v, w) {
			t.Errorf("%s: %s = %v, golden config has %v (present %v)", what, k, v, w, ok)
		}
	}
}

func planShapes(t *testing.T, plan remap.Plan, src map[string][]int) remap.Shapes {
	t.Helper()
	s, err := plan.Shapes(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ggufShapes(f *gguf.File) map[string][]int {
	out := map[string][]int{}
	for _, tn := range f.Tensors() {
		out[tn.Name] = tn.Shape
	}
	return out
}

// TestInferConfigs: the configs inferred from tensor shapes (and, for the GGUF text encoder,
// its qwen3.* metadata) agree with the tiny model's config.json files on every key they set,
// for the diffusers folder, the BFL single files and the GGUF files.
func TestInferConfigs(t *testing.T) {
	tcfg, qcfg, vcfg := folderConfig(t, "transformer"), folderConfig(t, "text_encoder"), folderConfig(t, "vae")

	for _, dir := range []string{"transformer", "text_encoder", "vae"} {
		ck := openCkpt(t, golden.TinyModel(t)+"/"+dir)
		shapes := remap.Shapes{}
		for _, n := range ck.Names() {
			tn, _ := ck.Tensor(n)
			shapes[n] = tn.Shape
		}
		switch dir {
		case "transformer":
			b, err := remap.Flux2Config(shapes)
			sameConfig(t, "folder transformer", b, err, tcfg)
		case "text_encoder":
			b, err := remap.Qwen3Config(shapes, remap.Qwen3Params{})
			sameConfig(t, "folder text encoder", b, err, qcfg)
		case "vae":
			b, err := remap.VAEConfig(shapes, 8)
			sameConfig(t, "folder vae", b, err, vcfg)
		}
	}

	src := golden.Open(t, "gguf/model/comfyui/diffusion_models/flux-2-klein-tiny.safetensors")
	plan, _, _ := remap.Transformer(src.Names())
	srcShapes := map[string][]int{}
	for _, n := range src.Names() {
		tn, _ := src.Tensor(n)
		srcShapes[n] = tn.Shape
	}
	b, err := remap.Flux2Config(planShapes(t, plan, srcShapes))
	sameConfig(t, "BFL transformer file", b, err, tcfg)

	ae := golden.Open(t, "gguf/model/comfyui/vae/flux2-ae-tiny.safetensors")
	plan, _, _ = remap.VAE(ae.Names())
	srcShapes = map[string][]int{}
	for _, n := range ae.Names() {
		tn, _ := ae.Tensor(n)
		srcShapes[n] = tn.Shape
	}
	b, err = remap.VAEConfig(planShapes(t, plan, srcShapes), 8)
	sameConfig(t, "BFL autoencoder file", b, err, vcfg)

	for _, p := range []string{"comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"} {
		f, err := gguf.Open(golden.Path(t, "gguf", "model", p))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		plan, _, _ := remap.Transformer(f.Names())
		b, err := remap.Flux2Config(planShapes(t, plan, ggufShapes(f)))
		sameConfig(t, p, b, err, tcfg)
	}

	te, err := gguf.Open(golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	plan, _, _ = remap.TextEncoder(te.Names(), -1)
	theta, _ := te.Float("qwen3.rope.freq_base")
	eps, _ := te.Float("qwen3.attention.layer_norm_rms_epsilon")
	ctx, _ := te.Uint("qwen3.context_length")
	b, err = remap.Qwen3Config(planShapes(t, plan, ggufShapes(te)), remap.Qwen3Params{
		RopeTheta: remap.Float32Decimal(float32(theta)), RMSNormEps: remap.Float32Decimal(float32(eps)), MaxPosition: int(ctx)})
	sameConfig(t, "GGUF text encoder", b, err, qcfg)
}

func TestInferConfigErrors(t *testing.T) {
	if _, err := remap.Flux2Config(remap.Shapes{"x_embedder.weight": {64, 128}}); err == nil {
		t.Error("flux2 config from one tensor")
	}
	if _, err := remap.Qwen3Config(remap.Shapes{}, remap.Qwen3Params{}); err == nil {
		t.Error("qwen3 config from nothing")
	}
	if _, err := remap.VAEConfig(remap.Shapes{"encoder.conv_in.weight": {16}}, 0); err == nil {
		t.Error("vae config from a bad shape")
	}
	if got := remap.Float32Decimal(float32(1e-6)); got != 1e-6 {
		t.Errorf("Float32Decimal(1e-6) = %v", got)
	}
}

// TestQwen3ConfigMissingLayerTensor: a text encoder missing one tensor of a layer is an error
// naming it (also in llama.cpp naming); it counted the layers before it and left the rest out
// (issue 37 item 8).
func TestQwen3ConfigMissingLayerTensor(t *testing.T) {
	s := remap.Shapes{"model.embed_tokens.weight": {100, 8}}
	for i := range 4 {
		for k, sh := range map[string][]int{"input_layernorm.weight": {8}, "self_attn.q_norm.weight": {4}, "self_attn.q_proj.weight": {8, 8},
			"self_attn.k_proj.weight": {4, 8}, "mlp.gate_proj.weight": {16, 8}} {
			s[fmt.Sprintf("model.layers.%d.%s", i, k)] = sh
		}
	}
	if _, err := remap.Qwen3Config(s, remap.Qwen3Params{}); err != nil {
		t.Fatal(err)
	}
	delete(s, "model.layers.2.input_layernorm.weight")
	_, err := remap.Qwen3Config(s, remap.Qwen3Params{})
	if err == nil || !strings.Contains(err.Error(), "model.layers.2.input_layernorm.weight") || !strings.Contains(err.Error(), "blk.2.attn_norm.weight") {
		t.Fatalf("missing layer norm: %v", err)
	}
}
