package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// renamedBackend is the default backend under another name, standing in for one of another
// precision (onednn computes in bf16).
type renamedBackend struct {
	gpu.Backend
	name string
}

func (b renamedBackend) Name() string { return b.name }

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	return m
}

// TestEmbedCacheKeysOnBackend checks that an embedding cached by one backend is not handed
// to another.
func TestEmbedCacheKeysOnBackend(t *testing.T) {
	cache := t.TempDir()
	const prompt = "A red cube on a blue table"
	a, err := Open(golden.TinyModel(t), renamedBackend{backends.Default(), "bf16-test"}, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.EncodePrompt(context.Background(), prompt, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles(t, cache)); n != 1 {
		t.Fatalf("%d cache files after the first encode", n)
	}
	b, err := Open(golden.TinyModel(t), backends.Default(), Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.EncodePrompt(context.Background(), prompt, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles(t, cache)); n != 2 {
		t.Fatalf("%d cache files: the second backend used the first one's embedding", n)
	}
}

// TestEmbedCacheRejectsBadEntries plants entries of the wrong shape and with NaN under the
// prompt's cache name: they must be dropped and the prompt encoded again.
func TestEmbedCacheRejectsBadEntries(t *testing.T) {
	const prompt = "A red cube on a blue table"
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "prompt_embeds")
	width := len(want) / TextTokens
	nan := make([]float32, len(want))
	copy(nan, want)
	nan[100] = float32(math.NaN())
	for _, c := range []struct {
		name  string
		shape []int
		data  []float32
	}{
		{"20000 tokens", []int{20000, width}, make([]float32, 20000*width)},
		{"flat", []int{len(want)}, want},
		{"NaN", []int{TextTokens, width}, nan},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Open(golden.TinyModel(t), backends.Default(), Options{CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			p := m.embeds.path(prompt)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := weights.WriteFile(p, []weights.OutTensor{{Name: "prompt_embeds", Shape: c.shape, F32: c.data}},
				map[string]string{"prompt": prompt, "model": m.embeds.modelKey}); err != nil {
				t.Fatal(err)
			}
			got, err := m.EncodePrompt(context.Background(), prompt, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, "embedding", got, want, 1e-5)
			// The bad entry was replaced by a good one.
			f, err := weights.OpenFile(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tt, err := f.Tensor("prompt_embeds")
			if err != nil || tt.CheckShape(TextTokens, width) != nil {
				t.Fatalf("cache entry after re-encoding: shape %v, %v", tt.Shape, err)
			}
		})
	}
}

// TestEmbedCacheReturnsCopies checks that a caller changing an embedding does not change
// what the cache hands out next.
func TestEmbedCacheReturnsCopies(t *testing.T) {
	m := openModel(t, golden.TinyModel(t))
	const prompt = "x"
	first, err := m.EncodePrompt(context.Background(), prompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep := first[0]
	first[0] = 12345
	second, err := m.EncodePrompt(context.Background(), prompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second[0] != keep {
		t.Fatalf("cached embedding changed by a caller: %v, want %v", second[0], keep)
	}
	second[0] = 54321
	third, _ := m.EncodePrompt(context.Background(), prompt, nil)
	if third[0] != keep {
		t.Fatalf("cached embedding changed by a caller of a hit: %v, want %v", third[0], keep)
	}
}
