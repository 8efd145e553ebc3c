package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestShardedTransformerLoads: a transformer split into diffusion_pytorch_model-0000N-of-
// 00002.safetensors with an index loads as the text encoder's shards do, and generates the
// same image as the single file (issue 23 item 15: refused as incomplete).
func TestShardedTransformerLoads(t *testing.T) {
	src := golden.TinyModel(t)
	dir := filepath.Join(t.TempDir(), "model")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(dir, "transformer")
	single := filepath.Join(tdir, "diffusion_pytorch_model.safetensors")
	f, err := weights.OpenFile(single)
	if err != nil {
		t.Fatal(err)
	}
	names := f.Names()
	shards := [2][]weights.OutTensor{}
	weightMap := map[string]string{}
	for i, n := range names {
		tt, _ := f.Tensor(n)
		out := weights.OutTensor{Name: n, Shape: tt.Shape}
		switch tt.DType {
		case weights.BF16:
			out.BF16, _ = tt.BF16()
		default:
			out.F32, _ = tt.Float32()
		}
		shards[i%2] = append(shards[i%2], out)
		weightMap[n] = []string{"diffusion_pytorch_model-00001-of-00002.safetensors", "diffusion_pytorch_model-00002-of-00002.safetensors"}[i%2]
	}
	for i, ts := range shards {
		name := []string{"diffusion_pytorch_model-00001-of-00002.safetensors", "diffusion_pytorch_model-00002-of-00002.safetensors"}[i]
		if err := weights.WriteFile(filepath.Join(tdir, name), ts, nil); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	idx, _ := json.Marshal(map[string]any{"metadata": map[string]any{}, "weight_map": weightMap})
	os.WriteFile(filepath.Join(tdir, "diffusion_pytorch_model.safetensors.index.json"), idx, 0o644)
	os.Remove(single)

	req := Request{Settings: Settings{Prompt: "x", Width: 64, Height: 64, Steps: 1, Seed: 3}}
	gen := func(d string) []float32 {
		m, err := Open(d, backends.Default(), Options{})
		if err != nil {
			t.Fatalf("open %s: %v", d, err)
		}
		defer m.Close()
		res, err := m.Generate(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Latents
	}
	golden.Compare(t, "sharded vs single transformer", gen(dir), gen(src), 0)
}
