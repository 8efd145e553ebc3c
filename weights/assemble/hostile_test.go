package assemble_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/assemble"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// patchedGolden copies a golden GGUF (rel to gguf/model) into a temporary folder after
// patch changed its bytes, and returns the copy's path.
func patchedGolden(t *testing.T, rel string, patch func([]byte)) string {
	t.Helper()
	data, err := os.ReadFile(golden.Path(t, "gguf", "model", rel))
	if err != nil {
		t.Fatal(err)
	}
	patch(data)
	p := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// neAt returns the offset of ne[0] in the tensor info of name.
func neAt(t *testing.T, data []byte, name string) int {
	t.Helper()
	key := append(binary.LittleEndian.AppendUint64(nil, uint64(len(name))), name...)
	i := bytes.Index(data, key)
	if i < 0 {
		t.Fatalf("tensor info %q not found", name)
	}
	return i + len(key) + 4
}

// TestZeroDimension: a GGUF transformer whose tensor has ne[0] = 0 is an error naming the
// tensor when opened or described (issue 37 item 1: info panicked with an integer divide
// by zero).
func TestZeroDimension(t *testing.T) {
	const name = "double_blocks.1.txt_attn.proj.weight"
	p := patchedGolden(t, "comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", func(d []byte) {
		binary.LittleEndian.PutUint64(d[neAt(t, d, name):], 0)
	})
	for what, open := range map[string]func(string) (*assemble.Component, error){
		"open": assemble.OpenTransformer, "describe": assemble.DescribeTransformer,
	} {
		c, err := open(p)
		if err == nil {
			c.Close()
			t.Fatalf("%s: accepted a zero dimension", what)
		}
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v does not name the tensor", what, err)
		}
	}
}

// withoutTensor writes a copy of the golden GGUF rel (to gguf/model) without tensor drop.
func withoutTensor(t *testing.T, rel, drop string) string {
	t.Helper()
	f, err := gguf.Open(golden.Path(t, "gguf", "model", rel))
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
		if tn.Name != drop {
			out = append(out, gguf.OutTensor{Name: tn.Name, Type: tn.Type, Shape: tn.Shape, Data: tn.Bytes()})
		}
	}
	if len(out) == len(f.Tensors()) {
		t.Fatalf("%s has no tensor %s", rel, drop)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := gguf.Write(p, kv, out); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTextEncoderMissingLayerTensor: a text encoder GGUF missing one tensor of a layer is
// refused when described (info) and opened, naming the tensor; it passed info and failed
// at generation with a hidden-state index out of range (issue 37 item 8).
func TestTextEncoderMissingLayerTensor(t *testing.T) {
	for _, drop := range []string{"blk.5.attn_norm.weight", "blk.5.ffn_down.weight"} {
		p := withoutTensor(t, "comfyui/text_encoders/qwen3-tiny-Q8_0.gguf", drop)
		c, err := assemble.DescribeTextEncoder(p)
		if err == nil {
			c.Close()
			t.Errorf("%s missing: described", drop)
		} else if !strings.Contains(err.Error(), drop) {
			t.Errorf("%s missing: %v", drop, err)
		}
	}
}

// withMetadata writes a copy of the golden GGUF rel (to gguf/model) with key set to v.
func withMetadata(t *testing.T, rel, key string, v gguf.Value) string {
	t.Helper()
	f, err := gguf.Open(golden.Path(t, "gguf", "model", rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kv []gguf.KV
	found := false
	for _, k := range f.Keys() {
		old, _ := f.Value(k)
		if k == key {
			old, found = v, true
		}
		kv = append(kv, gguf.KV{Key: k, Value: old})
	}
	if !found {
		t.Fatalf("%s has no key %s", rel, key)
	}
	var out []gguf.OutTensor
	for _, tn := range f.Tensors() {
		out = append(out, gguf.OutTensor{Name: tn.Name, Type: tn.Type, Shape: tn.Shape, Data: tn.Bytes()})
	}
	p := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := gguf.Write(p, kv, out); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTextEncoderBadMetadata: a NaN, infinite, zero or negative rope.freq_base or
// layer_norm_rms_epsilon is an error naming the key; it gave "json: unsupported value: NaN"
// (issue 37 item 10).
func TestTextEncoderBadMetadata(t *testing.T) {
	for _, key := range []string{"qwen3.rope.freq_base", "qwen3.attention.layer_norm_rms_epsilon"} {
		for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, -1} {
			p := withMetadata(t, "comfyui/text_encoders/qwen3-tiny-Q8_0.gguf", key, gguf.Float32(v))
			c, err := assemble.DescribeTextEncoder(p)
			if err == nil {
				c.Close()
				t.Errorf("%s = %v: described", key, v)
			} else if !strings.Contains(err.Error(), key) {
				t.Errorf("%s = %v: %v", key, v, err)
			}
		}
	}
}
