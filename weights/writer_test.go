package weights_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"kleinbild/internal/atomicfile"
	"kleinbild/weights"
)

// TestWriteFileRoundTrip writes every dtype (scalars, zero-size and multi-dimensional
// tensors, metadata) and reads them back bit-exactly.
func TestWriteFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rt.safetensors")
	nan := math.Float32frombits(0x7fc00001)
	in := []weights.OutTensor{
		{Name: "f32", Shape: []int{2, 3}, F32: []float32{0, -1.5, float32(math.Inf(1)), nan, math.SmallestNonzeroFloat32, math.MaxFloat32}},
		{Name: "f32_scalar", Shape: []int{}, F32: []float32{3.25}},
		{Name: "f32_scalar_nilshape", F32: []float32{-7}},
		{Name: "bf16", Shape: []int{4}, BF16: []uint16{0x3f80, 0xc000, 0x7f80, 0x0001}},
		{Name: "f16", Shape: []int{1, 3}, F16: []uint16{0x3c00, 0x7bff, 0x8001}},
		{Name: "i64", Shape: []int{3}, I64: []int64{math.MinInt64, 1000, math.MaxInt64}},
		{Name: "i64_scalar", Shape: []int{}, I64: []int64{1000}},
		{Name: "u8", Shape: []int{2, 2, 1}, U8: []uint8{0, 1, 254, 255}},
		{Name: "empty_f32", Shape: []int{0, 5}, F32: []float32{}},
		{Name: "empty_default", Shape: []int{3, 0}},
		{Name: "a odd/name \"quoted\" ü <&>", Shape: []int{1}, U8: []uint8{42}},
	}
	meta := map[string]string{"format": "pt", "note": "ünïcode \"q\""}
	if err := weights.WriteFile(path, in, meta); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if hl := binary.LittleEndian.Uint64(raw); hl%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", hl)
	}
	f, err := weights.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Metadata["format"] != "pt" || f.Metadata["note"] != meta["note"] || len(f.Metadata) != 2 {
		t.Errorf("metadata %v", f.Metadata)
	}
	names := make([]string, len(in))
	for i, o := range in {
		names[i] = o.Name
	}
	slices.Sort(names)
	if !slices.Equal(f.Names(), names) {
		t.Errorf("names %q, want %q", f.Names(), names)
	}
	for _, o := range in {
		tn, err := f.Tensor(o.Name)
		if err != nil {
			t.Fatal(err)
		}
		wantShape := o.Shape
		if wantShape == nil {
			wantShape = []int{}
		}
		if err := tn.CheckShape(wantShape...); err != nil {
			t.Error(err)
		}
		var got, want []byte
		switch {
		case o.F32 != nil:
			want = f32Bytes(o.F32)
			if tn.DType != weights.F32 {
				t.Errorf("%s: dtype %s", o.Name, tn.DType)
			}
			v, err := tn.Float32()
			if err != nil {
				t.Fatal(err)
			}
			got = f32Bytes(v)
		case o.BF16 != nil:
			want = u16Bytes(o.BF16)
			v, err := tn.BF16()
			if err != nil {
				t.Fatal(err)
			}
			got = u16Bytes(v)
		case o.F16 != nil:
			want = u16Bytes(o.F16)
			v, err := tn.F16()
			if err != nil {
				t.Fatal(err)
			}
			got = u16Bytes(v)
		case o.I64 != nil:
			for _, x := range o.I64 {
				want = binary.LittleEndian.AppendUint64(want, uint64(x))
			}
			v, err := tn.Int64()
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				got = binary.LittleEndian.AppendUint64(got, uint64(x))
			}
		default:
			want = o.U8
			if got, err = tn.Uint8(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, want) || !bytes.Equal(tn.Bytes(), want) {
			t.Errorf("%s: read %x, wrote %x", o.Name, got, want)
		}
	}
	// Float32 of the other float types converts; of integers it fails with names.
	f16, _ := f.Tensor("f16")
	if v, err := f16.Float32(); err != nil || v[0] != 1 || v[1] != 65504 || v[2] != -float32(math.Ldexp(1, -24)) {
		t.Errorf("f16 as float32: %v, %v", v, err)
	}
	{
		tn, _ := f.Tensor("bf16")
		v, err := tn.Float32()
		if err != nil || v[0] != 1 || v[1] != -2 || !math.IsInf(float64(v[2]), 1) || v[3] != float32(math.Ldexp(1, -133)) {
			t.Errorf("bf16 as float32: %v, %v", v, err)
		}
		dst := make([]float32, 3)
		if err := tn.ReadFloat32(dst); err == nil || !strings.Contains(err.Error(), `"bf16"`) {
			t.Errorf("ReadFloat32 into a short buffer: %v", err)
		}
		if _, err := tn.Int64(); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Int64 of BF16: %v", err)
		}
	}
	for _, n := range []string{"i64", "u8"} {
		tn, _ := f.Tensor(n)
		if _, err := tn.Float32(); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), n) {
			t.Errorf("Float32 of %s: %v", n, err)
		}
	}
}

func f32Bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func u16Bytes(v []uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

// TestWriteFileErrors checks that invalid tensors are refused before anything is written.
func TestWriteFileErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.safetensors")
	cases := []struct {
		name string
		ts   []weights.OutTensor
		meta map[string]string
		want string
	}{
		{"count mismatch", []weights.OutTensor{{Name: "a", Shape: []int{2, 2}, F32: []float32{1, 2, 3}}}, nil, "3 values for shape [2 2]"},
		{"scalar without value", []weights.OutTensor{{Name: "a", F32: []float32{}}}, nil, "0 values"},
		{"duplicate", []weights.OutTensor{{Name: "a", U8: []uint8{1}, Shape: []int{1}}, {Name: "a", U8: []uint8{2}, Shape: []int{1}}}, nil, `duplicate tensor "a"`},
		{"two data fields", []weights.OutTensor{{Name: "a", Shape: []int{1}, F32: []float32{1}, I64: []int64{1}}}, nil, "2 data fields"},
		{"negative dim", []weights.OutTensor{{Name: "a", Shape: []int{-1, -2}, U8: []uint8{1, 2}}}, nil, "invalid dimension"},
		{"reserved name", []weights.OutTensor{{Name: "__metadata__", Shape: []int{1}, U8: []uint8{1}}}, nil, "reserved"},
		{"invalid UTF-8 name", []weights.OutTensor{{Name: "a\xff", Shape: []int{1}, U8: []uint8{1}}}, nil, "UTF-8"},
		{"invalid UTF-8 metadata", nil, map[string]string{"k": "\xfe"}, "UTF-8"},
	}
	for _, tc := range cases {
		err := weights.WriteFile(path, tc.ts, tc.meta)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", tc.name, err, path, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed writes left files: %v", ents)
	}
}

// TestWriteAtomic checks that a failing or panicking fill leaves an existing file unchanged
// and no temporary file behind, and that a successful write replaces the file.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.safetensors")
	old := []weights.OutTensor{{Name: "x", Shape: []int{2}, F32: []float32{1, 2}}}
	if err := weights.WriteFile(path, old, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	check := func(label string) {
		t.Helper()
		after, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(after, before) {
			t.Errorf("%s: file changed (%v)", label, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("%s: folder holds %v", label, names)
		}
	}

	boom := errors.New("boom")
	err := atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		w.WriteString("partial content that must never be seen")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("fill error: %v", err)
	}
	check("fill error")

	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic in fill was swallowed")
			}
		}()
		atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
			w.Write(make([]byte, 2<<20)) // past the buffer: reaches the temp file
			panic("fill panicked")
		})
	}()
	check("fill panic")

	// The target is a folder: the rename fails after everything else succeeded.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(filepath.Join(sub), 0o755)
	if err := os.WriteFile(filepath.Join(sub, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteAtomic(sub, func(w *bufio.Writer) error { _, err := w.WriteString("x"); return err }); err == nil {
		t.Error("writing over a non-empty folder succeeded")
	}
	os.RemoveAll(sub)
	check("rename failure")

	if err := weights.WriteFile(filepath.Join(dir, "missing", "x.safetensors"), old, nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: %v", err)
	}

	next := []weights.OutTensor{{Name: "y", Shape: []int{1}, I64: []int64{5}}}
	if err := weights.WriteFile(path, next, nil); err != nil {
		t.Fatal(err)
	}
	f, err := weights.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !slices.Equal(f.Names(), []string{"y"}) {
		t.Errorf("after rewrite: names %v", f.Names())
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 && runtime.GOOS != "windows" { // no permission bits there
		t.Errorf("rewrite changed permissions to %v", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("folder holds %d entries", len(ents))
	}
}

// TestUnalignedData reads tensors whose bytes are not aligned in memory (headers need not be
// padded): the accessors must copy and decode instead of viewing.
func TestUnalignedData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.safetensors")
	in := []weights.OutTensor{
		{Name: "a_f32", Shape: []int{3}, F32: []float32{1.5, -2, 3e-3}},
		{Name: "b_bf16", Shape: []int{2}, BF16: []uint16{0x3f80, 0xc040}},
		{Name: "c_f16", Shape: []int{1}, F16: []uint16{0x3c00}},
		{Name: "d_i64", Shape: []int{2}, I64: []int64{-1, 1 << 40}},
	}
	if err := weights.WriteFile(path, in, nil); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for shift := 1; shift < 8; shift++ {
		buf := make([]byte, len(raw)+shift)
		data := buf[shift:]
		copy(data, raw)
		f, err := weights.ParseBytes("shifted", data)
		if err != nil {
			t.Fatal(err)
		}
		get := func(n string) *weights.Tensor { tn, _ := f.Tensor(n); return tn }
		if v, err := get("a_f32").Float32(); err != nil || !slices.Equal(v, in[0].F32) {
			t.Errorf("shift %d: f32 %v %v", shift, v, err)
		}
		if v, err := get("b_bf16").Float32(); err != nil || !slices.Equal(v, []float32{1, -3}) {
			t.Errorf("shift %d: bf16 %v %v", shift, v, err)
		}
		if v, err := get("b_bf16").BF16(); err != nil || !slices.Equal(v, in[1].BF16) {
			t.Errorf("shift %d: bf16 bits %v %v", shift, v, err)
		}
		if v, err := get("c_f16").Float32(); err != nil || v[0] != 1 {
			t.Errorf("shift %d: f16 %v %v", shift, v, err)
		}
		if v, err := get("d_i64").Int64(); err != nil || !slices.Equal(v, in[3].I64) {
			t.Errorf("shift %d: i64 %v %v", shift, v, err)
		}
	}
}
