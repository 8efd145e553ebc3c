package randmodel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kleinbild/engine/qwen3"
	"kleinbild/weights"
	"kleinbild/weights/gguf"
)

// GGUFFiles are the files WriteGGUF writes, relative to the model folder.
var GGUFFiles = struct{ Transformer, TextEncoder string }{
	Transformer: filepath.Join("gguf", "transformer-Q8_0.gguf"),
	TextEncoder: filepath.Join("gguf", "text_encoder-Q8_0.gguf"),
}

// keepTypes are name parts of transformer tensors that stay unquantized, as ComfyUI-GGUF's
// converter keeps img_in, txt_in, time_in, guidance_in and final_layer (diffusers names).
var keepTypes = []string{"x_embedder.", "context_embedder.", "time_guidance_embed.", "norm_out.", "proj_out."}

// WriteGGUF writes the transformer and text encoder of the model folder dir (one Create
// wrote) as GGUF files with a Q8_0 mix like the published ones, under dir/gguf (GGUFFiles):
// 2-D tensors whose rows are whole Q8_0 blocks become Q8_0 except the transformer's input
// and output layers; the rest keep their type. Names stay diffusers / transformers names
// (assemble reads them as such). Each file is built in memory (about its size) and written
// atomically. For benchmarks of quantized models without downloading them.
func WriteGGUF(ctx context.Context, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "gguf"), 0o755); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	if err := writeGGUF(ctx, filepath.Join(dir, "transformer"), filepath.Join(dir, GGUFFiles.Transformer), keepTypes,
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
	return writeGGUF(ctx, filepath.Join(dir, "text_encoder"), filepath.Join(dir, GGUFFiles.TextEncoder), nil, kv)
}

// plainGGUF maps the safetensors dtypes kept as they are to GGUF types.
var plainGGUF = map[weights.DType]gguf.Type{weights.F32: gguf.F32, weights.F16: gguf.F16, weights.BF16: gguf.BF16}

func writeGGUF(ctx context.Context, src, out string, keep []string, kv []gguf.KV) error {
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
		quantize := len(t.Shape) == 2 && t.Shape[1]%32 == 0
		for _, k := range keep {
			quantize = quantize && !strings.Contains(name, k)
		}
		if quantize {
			v, err := t.Float32()
			if err != nil {
				return fmt.Errorf("randmodel: %s: %w", name, err)
			}
			if o.Data, err = gguf.QuantizeQ8_0(v); err != nil {
				return fmt.Errorf("randmodel: %s: %w", name, err)
			}
			o.Type = gguf.Q8_0
		}
		tensors = append(tensors, o)
	}
	if err := gguf.Write(out, kv, tensors); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	return nil
}
