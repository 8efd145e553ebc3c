package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/gpu/backends"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// narrowTextInput writes the golden GGUF transformer with txt_in.weight cut to its first
// column (width 1): a file consistent in itself, whose text input no text encoder gives.
func narrowTextInput(t *testing.T) string {
	t.Helper()
	f, err := gguf.Open(golden.Path(t, "gguf", "model", "comfyui", "diffusion_models", "flux-2-klein-tiny-Q8_0-mix.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kv []gguf.KV
	for _, k := range f.Keys() {
		v, _ := f.Value(k)
		kv = append(kv, gguf.KV{Key: k, Value: v})
	}
	var out []gguf.OutTensor
	for _, tn := range f.Tensors() {
		o := gguf.OutTensor{Name: tn.Name, Type: tn.Type, Shape: tn.Shape, Data: tn.Bytes()}
		if tn.Name == "txt_in.weight" {
			size := map[gguf.Type]int{gguf.F32: 4, gguf.F16: 2, gguf.BF16: 2}[tn.Type]
			if size == 0 || len(tn.Shape) != 2 {
				t.Fatalf("txt_in.weight is %s %v", tn.Type, tn.Shape)
			}
			o.Shape, o.Data = []int{tn.Shape[0], 1}, nil
			for r := range tn.Shape[0] {
				o.Data = append(o.Data, tn.Bytes()[r*tn.Shape[1]*size:][:size]...)
			}
		}
		out = append(out, o)
	}
	p := filepath.Join(t.TempDir(), "narrow.gguf")
	if err := gguf.Write(p, kv, out); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTextWidthMismatch: a transformer whose text input is 1 wide, with the tiny model's text
// encoder, fails the load check (info) naming txt_in and the width the encoder gives; it
// passed info and --deep, and generation blamed the prompt embeddings (issue 37 item 9).
func TestTextWidthMismatch(t *testing.T) {
	base, err := OpenFolder(golden.TinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewParts(base, Overrides{Transformer: narrowTextInput(t)})
	if err != nil {
		t.Fatal(err)
	}
	b := backends.Default()
	defer b.Close()
	err = CheckLoad(src, Transformer, b)
	if err == nil || !strings.Contains(err.Error(), "txt_in") || !strings.Contains(err.Error(), "text encoder gives") {
		t.Fatalf("transformer with a text input 1 wide: %v", err)
	}
}
