package assemble_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/assemble"
	"kleinbild/weights/gguf"
	"kleinbild/weights/remap"
)

// bigRows is a tensor of several pages, so that truncating its file to one page leaves most
// of it past the end: reading it then faults (SIGBUS without the guard).
const bigRows, bigCols = 64, 1024

// truncatedFiles writes a safetensors file (one tensor per dtype F32, BF16, F16, I64) and a
// GGUF file (F32, F16 and Q8_0 tensors of bigRows × bigCols), and returns their paths.
func truncatedFiles(t *testing.T) (st, gg string) {
	dir := t.TempDir()
	st, gg = filepath.Join(dir, "w.safetensors"), filepath.Join(dir, "w.gguf")
	n := bigRows * bigCols
	f32, u16, i64 := make([]float32, n), make([]uint16, n), make([]int64, n)
	err := weights.WriteFile(st, []weights.OutTensor{
		{Name: "f32", Shape: []int{bigRows, bigCols}, F32: f32},
		{Name: "bf16", Shape: []int{bigRows, bigCols}, BF16: u16},
		{Name: "f16", Shape: []int{bigRows, bigCols}, F16: u16},
		{Name: "i64", Shape: []int{bigRows, bigCols}, I64: i64},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q8, err := gguf.QuantizeQ8_0(f32)
	if err != nil {
		t.Fatal(err)
	}
	err = gguf.Write(gg, nil, []gguf.OutTensor{
		{Name: "f32", Type: gguf.F32, Shape: []int{bigRows, bigCols}, Data: make([]byte, 4*n)},
		{Name: "f16", Type: gguf.F16, Shape: []int{bigRows, bigCols}, Data: make([]byte, 2*n)},
		{Name: "q8", Type: gguf.Q8_0, Shape: []int{bigRows, bigCols}, Data: q8},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, gg
}

func truncate(t *testing.T, path string) {
	t.Helper()
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
}

// mappedReader is one way the weights packages read a mapped file: open runs before the
// file is truncated, read after.
type mappedReader struct {
	name string
	gguf bool // reads the GGUF file (else the safetensors one)
	read func(t *testing.T, path string) (after func() error)
}

// safetensorsRead opens the safetensors file and returns read(tensor) to run once it shrank.
func safetensorsRead(name string, read func(*weights.Tensor) error) func(*testing.T, string) func() error {
	return func(t *testing.T, path string) func() error {
		ck, err := weights.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ck.Close() })
		tn, err := ck.Tensor(name)
		if err != nil {
			t.Fatal(err)
		}
		return func() error { return read(tn) }
	}
}

// ggufOpen opens the GGUF file and returns after(f) to run once it shrank.
func ggufOpen(after func(*gguf.File) error) func(*testing.T, string) func() error {
	return func(t *testing.T, path string) func() error {
		f, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return func() error { return after(f) }
	}
}

// assembled assembles plan from the GGUF file (before it shrinks) and returns read(tensor).
func assembled(plan remap.Plan, target string, read func(*weights.Tensor) error) func(*testing.T, string) func() error {
	return func(t *testing.T, path string) func() error {
		f, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := assemble.FromGGUF(f, plan)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ck.Close() })
		tn, err := ck.Tensor(target)
		if err != nil {
			t.Fatal(err)
		}
		return func() error { return read(tn) }
	}
}

func float32Of(tn *weights.Tensor) error { _, err := tn.Float32(); return err }
func readFloat32(tn *weights.Tensor) error {
	return tn.ReadFloat32(make([]float32, tn.Numel()))
}

// mappedReaders is every reader of a mapped file in the weights packages that copies,
// converts, decodes or parses its data. The view-returning methods (Bytes, BF16, F16, Uint8,
// an aligned F32 Float32) read nothing: their callers (engine/bind) guard their reads.
var mappedReaders = []mappedReader{
	{"weights.Tensor.Float32 (BF16 conversion)", false, safetensorsRead("bf16", float32Of)},
	{"weights.Tensor.Float32 (F16 conversion)", false, safetensorsRead("f16", float32Of)},
	{"weights.Tensor.ReadFloat32", false, safetensorsRead("f32", readFloat32)},
	{"weights.Tensor.Int64", false, safetensorsRead("i64", func(tn *weights.Tensor) error { _, err := tn.Int64(); return err })},
	{"assemble.FromCheckpoint (half swap)", false, func(t *testing.T, path string) func() error {
		ck, err := weights.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ck.Close() })
		return func() error {
			_, err := assemble.FromCheckpoint(ck, remap.Plan{"x": {Name: "bf16", Op: remap.SwapHalves}})
			return err
		}
	}},
	{"gguf.Tensor.Float32", true, ggufOpen(func(f *gguf.File) error {
		tn, _ := f.Tensor("q8")
		_, err := tn.Float32()
		return err
	})},
	{"gguf.Tensor.ReadFloat32", true, ggufOpen(func(f *gguf.File) error {
		tn, _ := f.Tensor("f16")
		return tn.ReadFloat32(make([]float32, tn.Numel()))
	})},
	{"assemble.FromGGUF (half swap: the open of issue 37 item 3a)", true, ggufOpen(func(f *gguf.File) error {
		_, err := assemble.FromGGUF(f, remap.Plan{"x": {Name: "f32", Op: remap.SwapHalves}})
		return err
	})},
	{"assemble.FromGGUF (packed half swap)", true, ggufOpen(func(f *gguf.File) error {
		_, err := assemble.FromGGUF(f, remap.Plan{"x": {Name: "q8", Op: remap.SwapHalves}})
		return err
	})},
	{"weights.Tensor.Float32 (GGUF Q8_0 dequantized)", true, assembled(remap.Plan{"x": {Name: "q8"}}, "x", float32Of)},
	{"weights.Tensor.ReadFloat32 (GGUF F16)", true, assembled(remap.Plan{"x": {Name: "f16"}}, "x", readFloat32)},
}

// TestEveryMappedReaderIsGuarded walks every reader of a mapped weight file (mappedReaders):
// each one, run after the file shrank under its mapping, returns an error wrapping
// weights.ErrFileChanged and naming the file once, where it killed the process with SIGBUS
// (issue 37 item 3a: a GGUF transformer shrinking while the model opened). A method added
// to weights.Tensor or gguf.Tensor must be listed here, as a reader or as a view.
func TestEveryMappedReaderIsGuarded(t *testing.T) {
	for _, r := range mappedReaders {
		t.Run(r.name, func(t *testing.T) {
			st, gg := truncatedFiles(t)
			path := st
			if r.gguf {
				path = gg
			}
			after := r.read(t, path)
			truncate(t, path)
			err := after()
			t.Log(err)
			if !errors.Is(err, weights.ErrFileChanged) || strings.Count(err.Error(), path) != 1 {
				t.Fatalf("read after the file shrank: %v", err)
			}
		})
	}
	covered := map[string]bool{}
	for _, r := range mappedReaders {
		covered[strings.Fields(r.name)[0]] = true
	}
	views := map[string]bool{"weights.Tensor.Bytes": true, "weights.Tensor.BF16": true, "weights.Tensor.F16": true,
		"weights.Tensor.Uint8": true, "weights.Tensor.Quantized": true, "gguf.Tensor.Bytes": true}
	meta := map[string]bool{"Numel": true, "RowLen": true, "CheckShape": true}
	for _, v := range []any{(*weights.Tensor)(nil), (*gguf.Tensor)(nil)} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumMethod() {
			name := strings.TrimPrefix(typ.Elem().String(), "") + "." + typ.Method(i).Name
			if !covered[name] && !views[name] && !meta[typ.Method(i).Name] {
				t.Errorf("%s is neither walked as a reader nor listed as a view", name)
			}
		}
	}
}
