package qwen3

import (
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// TestDtypeErrorNamesFileOnce: a text encoder file whose tensors have a wrong dtype is an
// error that names each tensor and the file once; the path was repeated before every
// problem (issue 37 item 17).
func TestDtypeErrorNamesFileOnce(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "text_encoder")
	ck, err := weights.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	bad := []string{"model.layers.3.mlp.down_proj.weight", "model.norm.weight"}
	var out []weights.OutTensor
	for _, n := range ck.Names() {
		tn, _ := ck.Tensor(n)
		v, err := tn.Float32()
		if err != nil {
			t.Fatal(err)
		}
		o := weights.OutTensor{Name: n, Shape: tn.Shape, F32: v}
		if n == bad[0] || n == bad[1] {
			o = weights.OutTensor{Name: n, Shape: tn.Shape, I64: make([]int64, len(v))}
		}
		out = append(out, o)
	}
	p := filepath.Join(t.TempDir(), "te.safetensors")
	if err := weights.WriteFile(p, out, nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := weights.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = LoadFrom(p, cfg, src, testBackend())
	if err == nil {
		t.Fatal("loaded I64 weights")
	}
	msg := err.Error()
	if strings.Count(msg, p) != 1 || !strings.Contains(msg, bad[0]) || !strings.Contains(msg, bad[1]) || !strings.Contains(msg, "I64") {
		t.Fatalf("dtype error: %s", msg)
	}
}
