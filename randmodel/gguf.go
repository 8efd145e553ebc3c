package randmodel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"kleinbild/engine/flux2"
	"kleinbild/engine/qwen3"
	"kleinbild/weights"
	"kleinbild/weights/gguf"
)

// GGUFFiles are the files WriteGGUF writes, relative to the model folder.
var GGUFFiles = GGUFFilesOf(MixQ8_0)

// GGUFFilesOf are the files WriteGGUFMix writes for mix, relative to the model folder:
// gguf/transformer-<mix>.gguf and gguf/text_encoder-<mix>.gguf.
func GGUFFilesOf(mix Mix) struct{ Transformer, TextEncoder string } {
	return struct{ Transformer, TextEncoder string }{
		Transformer: filepath.Join("gguf", "transformer-"+string(mix)+".gguf"),
		TextEncoder: filepath.Join("gguf", "text_encoder-"+string(mix)+".gguf"),
	}
}

// keepTypes are name parts of transformer tensors that stay unquantized, as ComfyUI-GGUF's
// converter keeps img_in, txt_in, time_in, guidance_in and final_layer (diffusers names).
var keepTypes = []string{"x_embedder.", "context_embedder.", "time_guidance_embed.", "norm_out.", "proj_out."}

// WriteGGUF is WriteGGUFMix with the Q8_0 mix.
func WriteGGUF(ctx context.Context, dir string) error { return WriteGGUFMix(ctx, dir, MixQ8_0) }

// WriteGGUFMix writes the transformer and text encoder of the model folder dir (one Create
// wrote) as GGUF files with a mix like the published ones, under dir/gguf (GGUFFilesOf):
// 2-D tensors become the mix's types (Mix.typeOf) except the transformer's input and output
// layers; the rest keep their type. Names stay diffusers / transformers names (assemble
// reads them as such). Each file is built in memory (about its size) and written atomically.
// For benchmarks of quantized models without downloading them.
func WriteGGUFMix(ctx context.Context, dir string, mix Mix) error {
	if _, err := ParseMix(string(mix)); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "gguf"), 0o755); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	files := GGUFFilesOf(mix)
	tcfg, err := flux2.LoadConfig(filepath.Join(dir, "transformer"))
	if err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	trans := mixRule{mix: mix, keep: keepTypes, blocks: tcfg.NumLayers + tcfg.NumSingleLayers, double: tcfg.NumLayers}
	if err := writeGGUF(ctx, filepath.Join(dir, "transformer"), filepath.Join(dir, files.Transformer), trans,
		[]gguf.KV{{Key: "general.architecture", Value: gguf.String("flux")}, {Key: "general.name", Value: gguf.String("random FLUX.2-klein (kleinbild randmodel)")}}); err != nil {
		return err
	}
	cfg, err := qwen3.LoadConfig(filepath.Join(dir, "text_encoder"))
	if err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("qwen3")},
		{Key: "qwen3.rope.freq_base", Value: gguf.Float32(float32(cfg.RopeTheta))},
		{Key: "qwen3.attention.layer_norm_rms_epsilon", Value: gguf.Float32(float32(cfg.RMSNormEps))},
	}
	if cfg.MaxPositionEmbeddings > 0 {
		kv = append(kv, gguf.KV{Key: "qwen3.context_length", Value: gguf.Uint32(uint32(cfg.MaxPositionEmbeddings))})
	}
	te := mixRule{mix: mix, blocks: cfg.NumHiddenLayers}
	return writeGGUF(ctx, filepath.Join(dir, "text_encoder"), filepath.Join(dir, files.TextEncoder), te, kv)
}

// plainGGUF maps the safetensors dtypes kept as they are to GGUF types.
var plainGGUF = map[weights.DType]gguf.Type{weights.F32: gguf.F32, weights.F16: gguf.F16, weights.BF16: gguf.BF16}

func writeGGUF(ctx context.Context, src, out string, rule mixRule, kv []gguf.KV) error {
	ck, err := weights.Open(src)
	if err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	defer ck.Close()
	var tensors []gguf.OutTensor
	for _, name := range ck.Names() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("randmodel: %w", err)
		}
		t, err := ck.Tensor(name)
		if err != nil {
			return fmt.Errorf("randmodel: %w", err)
		}
		typ, ok := plainGGUF[t.DType]
		if !ok {
			return fmt.Errorf("randmodel: %s: dtype %v has no GGUF type here", name, t.DType)
		}
		o := gguf.OutTensor{Name: name, Type: typ, Shape: t.Shape, Data: t.Bytes()}
		if q := rule.typeOf(name, t.Shape); q != 0 {
			v, err := t.Float32()
			if err != nil {
				return fmt.Errorf("randmodel: %s: %w", name, err)
			}
			if o.Data, err = quantize(ctx, q, v); err != nil {
				return fmt.Errorf("randmodel: %s: %w", name, err)
			}
			o.Type = q
		}
		tensors = append(tensors, o)
	}
	if err := gguf.Write(out, kv, tensors); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	return nil
}
