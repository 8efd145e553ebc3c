package qwen3

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/assemble"
	"kleinbild/weights/golden"
)

// TestGGUFEncode encodes the golden prompts of gguf/cases with the llama.cpp Q8_0 text encoder
// read by assemble.OpenTextEncoder (Q8_0 matrices, F32 norms, tied embedding) and compares
// the prompt embeddings at rel-L2 relTol.
func TestGGUFEncode(t *testing.T) {
	path := golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")
	comp, err := assemble.OpenTextEncoder(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(comp.Config)
	if err != nil {
		comp.Close()
		t.Fatal(err)
	}
	e, err := LoadFrom(path, cfg, comp.Checkpoint, backends.Default())
	if err != nil {
		comp.Close()
		t.Fatal(err)
	}
	defer e.Close()
	for k := range 2 {
		c := golden.Open(t, fmt.Sprintf("gguf/cases/qwen3_q8_0_prompt%d.safetensors", k))
		ids64, _ := golden.I64(t, c, "input_ids")
		m64, _ := golden.I64(t, c, "attention_mask")
		ids, mask := make([]int, len(ids64)), make([]int, len(m64))
		for i := range ids {
			ids[i], mask[i] = int(ids64[i]), int(m64[i])
		}
		want, _ := golden.F32(t, c, "prompt_embeds")
		got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
		if err != nil {
			t.Fatal(err)
		}
		golden.Compare(t, fmt.Sprintf("qwen3_q8_0_prompt%d", k), got, want, relTol)
	}
}

// TestLoadLayers reads only the decoder layers the pipeline runs (0..26 for hidden states 9,
// 18, 27) from the GGUF text encoder: the prompt embeddings are the golden ones, the config
// keeps all 28 layers, and asking for hidden state 28 is an error.
func TestLoadLayers(t *testing.T) {
	path := golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")
	comp, err := assemble.OpenTextEncoder(path, 26)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(comp.Config)
	if err != nil || cfg.NumHiddenLayers != 28 {
		comp.Close()
		t.Fatalf("config: %v, %d layers", err, cfg.NumHiddenLayers)
	}
	if _, err := LoadFrom(path, cfg, comp.Checkpoint, backends.Default()); err == nil {
		t.Error("LoadFrom accepted 27 of 28 layers")
	}
	e, err := LoadLayers(path, cfg, comp.Checkpoint, backends.Default(), 27)
	if err != nil {
		comp.Close()
		t.Fatal(err)
	}
	defer e.Close()
	c := golden.Open(t, "gguf/cases/qwen3_q8_0_prompt0.safetensors")
	ids64, _ := golden.I64(t, c, "input_ids")
	m64, _ := golden.I64(t, c, "attention_mask")
	ids, mask := make([]int, len(ids64)), make([]int, len(m64))
	for i := range ids {
		ids[i], mask[i] = int(ids64[i]), int(m64[i])
	}
	want, _ := golden.F32(t, c, "prompt_embeds")
	got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "27 of 28 layers", got, want, relTol)
	if _, err := e.Encode(context.Background(), ids, mask, []int{28}, nil); err == nil || !strings.Contains(err.Error(), "not read") {
		t.Errorf("hidden state 28: %v", err)
	}
}

// quantBackend counts the packed weights and float32 matrices a loader makes; refuse makes
// WeightQuant fail, as a backend without quantized kernels would.
type quantBackend struct {
	gpu.Backend
	refuse         bool
	quant, f32Mats int
}

func (q *quantBackend) WeightQuant(dt gpu.DType, raw []byte, shape ...int) (gpu.Tensor, error) {
	if q.refuse {
		return gpu.Tensor{}, errors.New("no quantized weights here")
	}
	q.quant++
	return q.Backend.WeightQuant(dt, raw, shape...)
}

func (q *quantBackend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	if len(shape) == 2 {
		q.f32Mats++
	}
	return q.Backend.WeightF32(data, shape...)
}

// TestGGUFEncodeQuantPacked loads the Q8_0 text encoder on the CPU backend: the seven
// matrices of each layer run go to WeightQuant packed (the token embedding, gathered on the host,
// does not reach the backend and stays packed: its rows are decoded as looked up), and when
// the backend refuses them the loader falls back to float32 copies. Both encode prompt 0 to the golden embeddings at relTol.
func TestGGUFEncodeQuantPacked(t *testing.T) {
	path := golden.Path(t, "gguf/model/comfyui/text_encoders/qwen3-tiny-Q8_0.gguf")
	c := golden.Open(t, "gguf/cases/qwen3_q8_0_prompt0.safetensors")
	ids64, _ := golden.I64(t, c, "input_ids")
	m64, _ := golden.I64(t, c, "attention_mask")
	ids, mask := make([]int, len(ids64)), make([]int, len(m64))
	for i := range ids {
		ids[i], mask[i] = int(ids64[i]), int(m64[i])
	}
	want, _ := golden.F32(t, c, "prompt_embeds")
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuse=%v", refuse), func(t *testing.T) {
			comp, err := assemble.OpenTextEncoder(path, -1)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseConfig(comp.Config)
			if err != nil {
				comp.Close()
				t.Fatal(err)
			}
			qb := &quantBackend{Backend: backends.DefaultCPU(), refuse: refuse}
			e, err := LoadFrom(path, cfg, comp.Checkpoint, qb)
			if err != nil {
				comp.Close()
				t.Fatal(err)
			}
			defer e.Close()
			if e.embed.Packed == nil || e.embed.F32 != nil {
				t.Error("the Q8_0 token embedding was dequantized whole (it must stay packed, rows decoded on lookup)")
			}
			got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The backend tensors are made on the first Encode.
			// Encode binds the layers up to the deepest hidden state asked for (27 of 28).
			packed, f32 := qb.quant, qb.f32Mats
			if refuse {
				packed, f32 = f32, packed
			}
			if packed != 7*27 || f32 != 0 {
				t.Errorf("refuse=%v: %d packed and %d float32 matrices", refuse, qb.quant, qb.f32Mats)
			}
			golden.Compare(t, "qwen3_q8_0_prompt0", got, want, relTol)
		})
	}
}
