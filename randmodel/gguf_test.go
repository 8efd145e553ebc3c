package randmodel

import (
	"context"
	"path/filepath"
	"testing"

	"kleinbild/engine"
	"kleinbild/gpu/backends"
	"kleinbild/weights"
	"kleinbild/weights/assemble"
	"kleinbild/weights/golden"
)

// TestWriteGGUF writes the tiny random model's transformer and text encoder as Q8_0-mix GGUF
// files: every tensor reads back within Q8_0's error (rel-L2 < 1%, most far below; the kept
// ones exactly), and the model generates from them.
func TestWriteGGUF(t *testing.T) {
	dir := tinyModel(t, 5)
	if err := WriteGGUF(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		comp, file string
		open       func(string) (*assemble.Component, error)
	}{
		{"transformer", GGUFFiles.Transformer, assemble.OpenTransformer},
		{"text_encoder", GGUFFiles.TextEncoder, func(p string) (*assemble.Component, error) { return assemble.OpenTextEncoder(p, -1) }},
	} {
		a, err := c.open(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := weights.Open(filepath.Join(dir, c.comp))
		if err != nil {
			t.Fatal(err)
		}
		if a.Types["Q8_0"] == 0 || len(a.Checkpoint.Names()) != len(ref.Names()) {
			t.Errorf("%s: types %v, %d of %d tensors", c.comp, a.Types, len(a.Checkpoint.Names()), len(ref.Names()))
		}
		worst := 0.0
		for _, n := range ref.Names() {
			want, _ := ref.Tensor(n)
			got, err := a.Checkpoint.Tensor(n)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := want.Float32()
			g, _ := got.Float32()
			rel, _ := golden.Errors(g, w)
			if got.DType == want.DType && rel != 0 {
				t.Errorf("%s %s: kept %v but changed (rel-L2 %.2g)", c.comp, n, got.DType, rel)
			}
			worst = max(worst, rel)
		}
		t.Logf("%s: %v, worst tensor rel-L2 %.2g", c.comp, a.Types, worst)
		if worst > 1e-2 || worst == 0 {
			t.Errorf("%s: worst tensor rel-L2 %.2g, want Q8_0's (0, 1e-2]", c.comp, worst)
		}
		a.Close()
		ref.Close()
	}
	src, err := engine.OpenModelSource(dir, engine.Overrides{Transformer: filepath.Join(dir, GGUFFiles.Transformer), TextEncoder: filepath.Join(dir, GGUFFiles.TextEncoder)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.OpenSource(src, backends.Default(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Generate(context.Background(), engine.Request{Prompt: "x", WidthPx: 64, HeightPx: 64, Steps: 1, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, Options{Variant: Tiny, Seed: 5, Tokenizer: golden.TinyModel(t)}); err != nil {
		t.Errorf("the gguf folder breaks Check: %v", err)
	}
}
