package qwen3

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/engine/lora"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// randMatrix is a small random matrix (values ±amp).
func randMatrix(rng *rand.Rand, rows, cols int, amp float32) lora.Matrix {
	m := lora.Matrix{Rows: rows, Cols: cols, Data: make([]float32, rows*cols)}
	for i := range m.Data {
		m.Data[i] = amp * (2*rng.Float32() - 1)
	}
	return m
}

// TestAdaptersRunTime applies text-encoder adapters at run time (a LoRA on q_proj and
// down_proj, a LoKr on o_proj, two adapters stacked at 0.8 and −0.5) and compares the hidden
// states with the same encoder whose weights have W + Σ s·ΔW merged in (float64 ΔW).
// Strength 0 then gives the base encoder's states again on the same loaded encoder.
func TestAdaptersRunTime(t *testing.T) {
	src := filepath.Join(golden.TinyModel(t), "text_encoder")
	cfg, err := LoadConfig(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	layers := Layers(cfg)
	rng := rand.New(rand.NewPCG(1, 2))
	lr := func(mod string, rank int) lora.Term {
		sh := layers[mod]
		return lora.Term{Module: mod, Component: lora.TextEncoder, Key: mod, Kind: lora.LoRA, Out: sh[0], In: sh[1], Rank: rank, Scale: 1.5,
			A: randMatrix(rng, rank, sh[1], 0.2), B: randMatrix(rng, sh[0], rank, 0.2)}
	}
	o := "model.layers.0.self_attn.o_proj"
	sh := layers[o]
	kr := lora.Term{Module: o, Component: lora.TextEncoder, Key: o, Kind: lora.LoKr, Out: sh[0], In: sh[1], Scale: 0.5,
		W1: lora.Factor{Full: randMatrix(rng, 4, 4, 0.5)}, W2: lora.Factor{Full: randMatrix(rng, sh[0]/4, sh[1]/4, 0.2)}}
	a1 := &lora.Adapter{Path: "a1", Terms: []lora.Term{lr("model.layers.0.self_attn.q_proj", 3), lr("model.layers.1.mlp.down_proj", 2), kr}}
	a2 := &lora.Adapter{Path: "a2", Terms: []lora.Term{lr("model.layers.0.self_attn.q_proj", 2)}}
	stack := lora.Stack{{Adapter: a1, Strength: 0.8}, {Adapter: a2, Strength: -0.5}}

	ids, mask := make([]int, 12), make([]int, 12)
	for i := range ids {
		ids[i], mask[i] = (i*37+5)%cfg.VocabSize, 1
	}
	states := func(e *Encoder) []float32 {
		t.Helper()
		hs, err := e.HiddenStates(context.Background(), ids, mask, 2)
		if err != nil {
			t.Fatal(err)
		}
		return hs[2]
	}
	base, err := Load(src, backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	plain := states(base)
	if err := base.SetAdapters(stack); err != nil {
		t.Fatal(err)
	}
	got := states(base)
	want := states(mergedEncoder(t, src, stack))
	golden.Compare(t, "run-time vs merged", got, want, 1e-5)
	if rel, _ := golden.Errors(got, plain); rel < 1e-3 {
		t.Errorf("the adapters changed the states by only %.2g", rel)
	}
	stack[0].Strength, stack[1].Strength = 0, 0
	if err := base.SetAdapters(stack); err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "strength 0", states(base), plain, 1e-6)
}

// mergedEncoder loads the encoder at src with the stack's ΔW merged into its weights.
func mergedEncoder(t *testing.T, src string, stack lora.Stack) *Encoder {
	t.Helper()
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := weights.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	mods := stack.Modules(lora.TextEncoder)
	var out []weights.OutTensor
	merged := 0
	for _, name := range ck.Names() {
		w, err := ck.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.Float32()
		if err != nil {
			t.Fatal(err)
		}
		v = append([]float32(nil), v...)
		mod := strings.TrimSuffix(name, ".weight")
		if !strings.HasPrefix(mod, "model.") {
			mod = "model." + mod
		}
		if terms, ok := mods[mod]; ok && len(w.Shape) == 2 {
			d, err := lora.DeltaW(terms, w.Shape[0], w.Shape[1])
			if err != nil {
				t.Fatal(err)
			}
			for i := range v {
				v[i] = float32(float64(v[i]) + float64(d[i]))
			}
			merged++
		}
		out = append(out, weights.OutTensor{Name: name, Shape: w.Shape, F32: v})
	}
	if merged != len(mods) {
		t.Fatalf("merged %d of %d modules", merged, len(mods))
	}
	if err := weights.WriteFile(filepath.Join(dir, "model.safetensors"), out, nil); err != nil {
		t.Fatal(err)
	}
	e, err := Load(dir, backends.Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
