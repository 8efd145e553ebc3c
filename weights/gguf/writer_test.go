package gguf_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// TestWriteRoundTrip writes metadata and tensors of several types and reads them back.
func TestWriteRoundTrip(t *testing.T) {
	q8, err := gguf.QuantizeQ8_0(make([]float32, 64))
	if err != nil {
		t.Fatal(err)
	}
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("flux")},
		{Key: "general.quantization_version", Value: gguf.Uint32(2)},
		{Key: "x.eps", Value: gguf.Float32(1e-6)},
		{Key: "general.tags", Value: gguf.Strings([]string{"a", "", "ccc"})},
	}
	tensors := []gguf.OutTensor{
		{Name: "a", Type: gguf.F32, Shape: []int{2, 3}, Data: make([]byte, 24)},
		{Name: "b", Type: gguf.Q8_0, Shape: []int{2, 32}, Data: q8},
		{Name: "c", Type: gguf.BF16, Shape: []int{5}, Data: []byte("0123456789")},
	}
	path := filepath.Join(t.TempDir(), "x.gguf")
	if err := gguf.Write(path, kv, tensors); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Architecture() != "flux" || !slices.Equal(f.Keys(), []string{"general.architecture", "general.quantization_version", "x.eps", "general.tags"}) {
		t.Errorf("keys %v", f.Keys())
	}
	if v, _ := f.Value("general.tags"); v.String() != "[3 x STRING]" {
		t.Errorf("tags %v", v)
	} else if s, _ := v.Strings(); !slices.Equal(s, []string{"a", "", "ccc"}) {
		t.Errorf("tags %q", s)
	}
	if x, _ := f.Float("x.eps"); float32(x) != 1e-6 {
		t.Errorf("eps %v", x)
	}
	for _, w := range tensors {
		g, err := f.Tensor(w.Name)
		if err != nil {
			t.Fatal(err)
		}
		if g.Type != w.Type || !slices.Equal(g.Shape, w.Shape) || !bytes.Equal(g.Bytes(), w.Data) || g.Offset%32 != 0 {
			t.Errorf("%s: %s %v at %d", w.Name, g.Type, g.Shape, g.Offset)
		}
	}
	bad := []gguf.OutTensor{{Name: "x", Type: gguf.Q8_0, Shape: []int{16}, Data: make([]byte, 17)}}
	if err := gguf.Write(filepath.Join(t.TempDir(), "y.gguf"), nil, bad); err == nil {
		t.Error("wrote a partial block")
	}
	if err := gguf.Write(filepath.Join(t.TempDir(), "y.gguf"), []gguf.KV{{Key: "general.alignment", Value: gguf.Uint32(3)}}, nil); err == nil {
		t.Error("wrote alignment 3")
	}
}

// TestQuantizeQ8_0Golden: requantizing the dequantized golden Q8_0 weights (made by gguf-py's
// quantizer) gives back the file's bytes exactly.
func TestQuantizeQ8_0Golden(t *testing.T) {
	f, err := gguf.Open(golden.Path(t, "gguf/dequant/Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"weights_3x256", "weights_2x512", "weights_5x64"} {
		tn, _ := f.Tensor(name)
		v, err := tn.Float32()
		if err != nil {
			t.Fatal(err)
		}
		q, err := gguf.QuantizeQ8_0(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(q, tn.Bytes()) {
			t.Errorf("%s: requantized bytes differ", name)
		}
	}
	if _, err := gguf.QuantizeQ8_0(make([]float32, 33)); err == nil {
		t.Error("quantized 33 values")
	}
}
