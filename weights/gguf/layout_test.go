package gguf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// infoAt returns the offset of the dimension count in the tensor info of name (the name
// string is unique in a small model's header) and the dimension count.
func infoAt(t *testing.T, data []byte, name string) (int, int) {
	t.Helper()
	key := append(binary.LittleEndian.AppendUint64(nil, uint64(len(name))), name...)
	i := bytes.Index(data, key)
	if i < 0 {
		t.Fatalf("tensor info %q not found", name)
	}
	at := i + len(key)
	return at, int(binary.LittleEndian.Uint32(data[at:]))
}

// setType sets the ggml type of tensor name in a GGUF image.
func setType(t *testing.T, data []byte, name string, ty gguf.Type) {
	at, nd := infoAt(t, data, name)
	binary.LittleEndian.PutUint32(data[at+4+8*nd:], uint32(ty))
}

func goldenModel(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(golden.Path(t, "gguf", "model", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTypeChangedToSmaller: a tensor whose type is changed to a smaller one (F32 to F16 by
// one bit, Q8_0 to Q4_0, BF16 to Q8_0) still has room in the file, but the offsets of the
// tensors after it, or the end of the data, no longer follow from the declared sizes; the
// file is refused, as llama.cpp refuses it (issue 37 item 4).
func TestTypeChangedToSmaller(t *testing.T) {
	const t1 = "comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf"
	good := goldenModel(t, t1)
	f, err := gguf.ParseBytes("good", good)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Tensors()
	last := ts[len(ts)-1]
	find := func(ty gguf.Type) string {
		for _, tn := range ts[:len(ts)-1] {
			if tn.Type == ty && tn.Size >= 64 {
				return tn.Name
			}
		}
		t.Fatalf("no %s tensor in %s", ty, t1)
		return ""
	}
	smaller := map[gguf.Type]gguf.Type{gguf.F32: gguf.F16, gguf.Q8_0: gguf.Q4_0, gguf.BF16: gguf.Q8_0, gguf.F16: gguf.Q8_0}
	cases := []struct {
		name string
		to   gguf.Type
	}{
		{find(gguf.F32), gguf.F16},
		{find(gguf.Q8_0), gguf.Q4_0},
		{find(gguf.BF16), gguf.Q8_0},
		{last.Name, smaller[last.Type]}, // no tensor after it: the data outlasts it
	}
	for _, c := range cases {
		data := bytes.Clone(good)
		setType(t, data, c.name, c.to)
		_, err := gguf.ParseBytes("x.gguf", data)
		if !errors.Is(err, gguf.ErrFormat) || !strings.Contains(err.Error(), "does not match the data") {
			t.Errorf("%s to %s: %v", c.name, c.to, err)
		}
	}
}

// TestZeroDimension: a tensor with a zero dimension (ne[0] = 0) is refused with its name
// (issue 37 item 1: it reached a division by the row length).
func TestZeroDimension(t *testing.T) {
	const name = "double_blocks.1.txt_attn.proj.weight"
	data := goldenModel(t, "comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf")
	for _, dim := range []int{0, 1} {
		d := bytes.Clone(data)
		at, _ := infoAt(t, d, name)
		binary.LittleEndian.PutUint64(d[at+4+8*dim:], 0)
		_, err := gguf.ParseBytes("x.gguf", d)
		if !errors.Is(err, gguf.ErrFormat) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "zero dimension") {
			t.Errorf("ne[%d] = 0: %v", dim, err)
		}
	}
}

// TestGoldenLayouts: every golden GGUF (model files and dequantization vectors, written by
// gguf-py) has the layout checkSequence requires.
func TestGoldenLayouts(t *testing.T) {
	for _, dir := range []string{"dequant", "model/comfyui/diffusion_models", "model/comfyui/text_encoders", "model/sdcpp"} {
		entries, err := os.ReadDir(golden.Path(t, "gguf", dir))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".gguf") {
				continue
			}
			f, err := gguf.Open(golden.Path(t, "gguf", dir, e.Name()))
			if err != nil {
				t.Error(err)
				continue
			}
			f.Close()
			n++
		}
		if n == 0 {
			t.Errorf("%s: no GGUF file", dir)
		}
	}
}
