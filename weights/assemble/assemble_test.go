package assemble_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/assemble"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
	"kleinbild/weights/remap"
)

func open(t *testing.T, path string) *weights.Checkpoint {
	t.Helper()
	c, err := weights.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sameTensors requires got and want to hold the same names, dtypes, shapes and bytes.
func sameTensors(t *testing.T, got, want *weights.Checkpoint) {
	t.Helper()
	if !slices.Equal(got.Names(), want.Names()) {
		t.Fatalf("names differ: %d vs %d", len(got.Names()), len(want.Names()))
	}
	for _, n := range want.Names() {
		g, _ := got.Tensor(n)
		w, _ := want.Tensor(n)
		if g.DType != w.DType || !slices.Equal(g.Shape, w.Shape) || !bytes.Equal(g.Bytes(), w.Bytes()) {
			t.Errorf("%s: %s %v, want %s %v (bytes equal %v)", n, g.DType, g.Shape, w.DType, w.Shape, bytes.Equal(g.Bytes(), w.Bytes()))
		}
	}
}

// TestFromBFLFiles: the BFL single-file transformer and autoencoder, assembled, equal the
// diffusers folder's checkpoints tensor for tensor, bit for bit.
func TestFromBFLFiles(t *testing.T) {
	for _, c := range []struct {
		file, dir string
		plan      func([]string) (remap.Plan, remap.Naming, error)
	}{
		{"diffusion_models/flux-2-klein-tiny.safetensors", "transformer", remap.Transformer},
		{"vae/flux2-ae-tiny.safetensors", "vae", remap.VAE},
	} {
		src := open(t, golden.Path(t, "gguf/model/comfyui", c.file))
		plan, _, err := c.plan(src.Names())
		if err != nil {
			t.Fatal(err)
		}
		ck, err := assemble.FromCheckpoint(src, plan)
		if err != nil {
			t.Fatal(err)
		}
		sameTensors(t, ck, open(t, golden.TinyModel(t)+"/"+c.dir))
		ck.Close()
	}
}

// TestFromGGUF: each GGUF assembles onto the folder's names; plain tensors keep their type
// and bytes, quantized ones are F32 and equal to dequantizing the whole source tensor and
// then taking the plan's rows (bit-exact). Closing the checkpoint closes the GGUF.
func TestFromGGUF(t *testing.T) {
	for _, c := range []struct{ file, dir string }{
		{"comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "transformer"},
		{"sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf", "transformer"},
		{"comfyui/text_encoders/qwen3-tiny-Q8_0.gguf", "text_encoder"},
	} {
		f, err := gguf.Open(golden.Path(t, "gguf/model", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var plan remap.Plan
		if c.dir == "text_encoder" {
			plan, _, err = remap.TextEncoder(f.Names(), -1)
		} else {
			plan, _, err = remap.Transformer(f.Names())
		}
		if err != nil {
			t.Fatal(err)
		}
		ck, err := assemble.FromGGUF(f, plan)
		if err != nil {
			t.Fatal(err)
		}
		folder := open(t, golden.TinyModel(t)+"/"+c.dir)
		if !slices.Equal(ck.Names(), folder.Names()) {
			t.Fatalf("%s: names differ from the folder's", c.file)
		}
		for _, n := range ck.Names() {
			got, _ := ck.Tensor(n)
			w, _ := folder.Tensor(n)
			if !slices.Equal(got.Shape, w.Shape) {
				t.Errorf("%s %s: shape %v, want %v", c.file, n, got.Shape, w.Shape)
			}
			s := plan[n]
			src, _ := f.Tensor(s.Name)
			whole, err := src.Float32()
			if err != nil {
				t.Fatal(err)
			}
			rows, _ := s.Rows(src.Shape[0])
			per := len(whole) / src.Shape[0]
			var want []float32
			for _, r := range rows {
				want = append(want, whole[r[0]*per:r[1]*per]...)
			}
			vals, err := got.Float32()
			if err != nil {
				t.Fatal(err)
			}
			if len(vals) != len(want) {
				t.Fatalf("%s %s: %d values, want %d", c.file, n, len(vals), len(want))
			}
			for i := range vals {
				if math.Float32bits(vals[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %s[%d] = %v, want %v", c.file, n, i, vals[i], want[i])
				}
			}
			wantType := map[gguf.Type]weights.DType{gguf.F32: weights.F32, gguf.F16: weights.F16, gguf.BF16: weights.BF16}[src.Type]
			if wantType == 0 {
				wantType = weights.F32
			}
			if got.DType != wantType {
				t.Errorf("%s %s: dtype %s for a %s source", c.file, n, got.DType, src.Type)
			}
		}
		if err := ck.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Tensor(f.Names()[0]); err == nil {
			t.Errorf("%s: GGUF still open after the checkpoint was closed", c.file)
		}
	}
}

// TestFromGGUFErrors: a plan naming a missing tensor fails and closes the file.
func TestFromGGUFErrors(t *testing.T) {
	f, err := gguf.Open(golden.Path(t, "gguf/dequant/Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assemble.FromGGUF(f, remap.Plan{"x": {Name: "missing"}}); err == nil {
		t.Fatal("no error")
	}
	if _, err := f.Tensor("random_3x256"); err == nil {
		t.Error("file not closed")
	}
	f, _ = gguf.Open(golden.Path(t, "gguf/dequant/Q8_0.gguf"))
	if _, err := assemble.FromGGUF(f, remap.Plan{"x": {Name: "random_3x256", Op: remap.Chunk, Part: 0, Parts: 2}}); err == nil {
		t.Fatal("chunk of 3 rows in 2: no error")
	}
	ck, err := weights.NewCheckpoint("x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := assemble.FromCheckpoint(ck, remap.Plan{"x": {Name: "missing"}}); err == nil {
		t.Fatal("no error for a missing tensor")
	}
	if _, err := weights.NewFile("x", []weights.TensorData{{Name: "a", DType: weights.F32, Shape: []int{2}, Data: make([]byte, 4)}}, nil); err == nil {
		t.Error("NewFile accepted a short tensor")
	}
	if _, err := weights.NewFile("x", []weights.TensorData{{Name: "a", DType: weights.F32, Data: make([]byte, 4)}, {Name: "a", DType: weights.F32, Data: make([]byte, 4)}}, nil); err == nil {
		t.Error("NewFile accepted a duplicate name")
	}
}
