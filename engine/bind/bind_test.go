package bind_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"kleinbild/engine/bind"
	"kleinbild/gpu"
	"kleinbild/gpu/cpu"
	"kleinbild/gpu/cpu/purego"
	"kleinbild/internal/ggml"
	"kleinbild/weights"
)

const file = "/models/x/weights.safetensors" // the name errors must give

func f32Bytes(v ...float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

func u16Bytes(v ...uint16) []byte {
	out := make([]byte, 0, 2*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint16(out, x)
	}
	return out
}

// q8Block is one Q8_0 block: scale d (f16 bits), 32 int8 values.
func q8Block(d uint16, q int8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, d)
	for j := range 32 {
		b = append(b, byte(q+int8(j%3)))
	}
	return b
}

// source is a checkpoint in memory with one tensor of each kind the binder handles.
func source(t *testing.T) weights.Source {
	t.Helper()
	packed := append(q8Block(0x3c00, 1), q8Block(0x3800, -2)...) // scales 1 and 0.5
	tensors := []weights.TensorData{
		{Name: "bf16", DType: weights.BF16, Shape: []int{2, 3}, Data: u16Bytes(0x3f80, 0x4000, 0x4040, 0x4080, 0x40a0, 0x40c0)}, // 1..6
		{Name: "f32", DType: weights.F32, Shape: []int{2, 3}, Data: f32Bytes(1, 2, 3, 4, 5, 6)},
		{Name: "f16", DType: weights.F16, Shape: []int{2, 3}, Data: u16Bytes(0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600)}, // 1..6
		{Name: "int", DType: weights.I64, Shape: []int{2, 3}, Data: make([]byte, 8*6)},
		{Name: "ints", DType: weights.I64, Shape: []int{3}, Data: make([]byte, 8*3)},
		{Name: "vec", DType: weights.BF16, Shape: []int{3}, Data: u16Bytes(0x3f80, 0x4000, 0x4040)},
		{Name: "conv", DType: weights.F32, Shape: []int{2, 1, 1, 2}, Data: f32Bytes(1, 2, 3, 4)},
		{Name: "model.pre", DType: weights.F32, Shape: []int{2}, Data: f32Bytes(7, 8)},
		{Name: "q8", DType: weights.F32, Shape: []int{2, 32}, Quant: &weights.Quant{Type: "Q8_0", Data: packed, Decode: func() ([]byte, error) {
			v := make([]float32, 64)
			ggml.DequantQ8_0(v, packed)
			return f32Bytes(v...), nil
		}}},
	}
	f, err := weights.NewFile(file, tensors, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := weights.NewCheckpoint(file, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// held is the number of tensors bd has made.
func held(bd *bind.Binder) int {
	h := bd.Made()
	return h.Len()
}

func backend(t *testing.T) *countingBackend {
	b := cpu.New(purego.New())
	t.Cleanup(func() { b.Close() })
	return &countingBackend{Backend: b}
}

// countingBackend counts the weight tensors made; refuseQuant makes it refuse packed data,
// failF32 fail every float32 weight.
type countingBackend struct {
	gpu.Backend
	made                 int
	refuseQuant, failF32 bool
}

func (b *countingBackend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	if b.failF32 {
		return gpu.Tensor{}, errors.New("out of device memory")
	}
	b.made++
	return b.Backend.WeightF32(data, shape...)
}

func (b *countingBackend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	b.made++
	return b.Backend.WeightBF16(bits, shape...)
}

func (b *countingBackend) WeightQuant(dt gpu.DType, raw []byte, shape ...int) (gpu.Tensor, error) {
	if b.refuseQuant {
		return gpu.Tensor{}, errors.New("no kernel for " + dt.String())
	}
	b.made++
	return b.Backend.WeightQuant(dt, raw, shape...)
}

// TestProblemsNamed: a missing tensor, a wrong shape and a wrong dtype each fail the load
// with an error naming the tensor and its file, and nothing is made on the backend.
func TestProblemsNamed(t *testing.T) {
	cases := []struct {
		name string
		bind func(bd *bind.Binder)
		want []string
	}{
		{"missing linear", func(bd *bind.Binder) { bd.Linear("nope", 2, 3) }, []string{`"nope"`, file, "not found"}},
		{"missing vector", func(bd *bind.Binder) { bd.Vector("nope", 3) }, []string{`"nope"`, file, "not found"}},
		{"missing host matrix", func(bd *bind.Binder) { bd.Matrix("nope", 2, 3, true) }, []string{`"nope"`, file, "not found"}},
		{"linear shape", func(bd *bind.Binder) { bd.Linear("bf16", 3, 2) }, []string{`"bf16"`, file, "[2 3]", "[3 2]"}},
		{"vector shape", func(bd *bind.Binder) { bd.Vector("vec", 4) }, []string{`"vec"`, file, "[3]", "[4]"}},
		{"weight shape", func(bd *bind.Binder) { bd.Weight("conv", 0, 2, 1, 2, 1) }, []string{`"conv"`, file, "[2 1 1 2]", "[2 1 2 1]"}},
		{"host matrix shape", func(bd *bind.Binder) { bd.Matrix("f32", 6, 1, false) }, []string{`"f32"`, file, "[2 3]", "[6 1]"}},
		{"linear dtype", func(bd *bind.Binder) { bd.Linear("int", 2, 3) }, []string{`"int"`, file, "is I64, want a float type"}},
		{"weight dtype", func(bd *bind.Binder) { bd.Weight("int", 0, 2, 3) }, []string{`"int"`, file, "is I64, want a float type"}},
		{"host vector dtype", func(bd *bind.Binder) { bd.HostVector("ints", 3) }, []string{`"ints"`, file, "is I64, want a float type"}},
		{"host matrix dtype", func(bd *bind.Binder) { bd.Matrix("f16", 2, 3, true) }, []string{`"f16"`, file, "is F16, want BF16 or F32"}},
		{"host matrix int", func(bd *bind.Binder) { bd.Matrix("int", 2, 3, false) }, []string{`"int"`, file, "is I64, want BF16 or F32"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := backend(t)
			bd := bind.New(source(t), b)
			tc.bind(bd)
			err := bd.Err(8)
			if err == nil || !bd.Failed() {
				t.Fatalf("no error (Failed %v)", bd.Failed())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if b.made != 0 || held(bd) != 0 {
				t.Errorf("%d tensors made (%d held) for a failed tensor", b.made, held(bd))
			}
		})
	}
}

// TestBackendErrorNamed: a backend that fails to make a weight gives an error naming the
// tensor and the backend.
func TestBackendErrorNamed(t *testing.T) {
	b := backend(t)
	b.failF32 = true
	bd := bind.New(source(t), b)
	bd.Vector("vec", 3)
	err := bd.Err(8)
	for _, w := range []string{"vec", "weights to the", "out of device memory"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
}

// TestAllProblemsListed: the checks go on after a problem (every one is listed, up to the
// limit), but nothing more is made on the backend.
func TestAllProblemsListed(t *testing.T) {
	b := backend(t)
	bd := bind.New(source(t), b)
	bd.Linear("bf16", 2, 3) // made
	bd.Linear("a", 1, 1)
	bd.Linear("f32", 2, 3) // fine, not made after a problem
	bd.Vector("vec", 3)    // nor this
	bd.Vector("b", 1)
	bd.Vector("c", 1)
	bd.Weight("d", 0, 1)
	if b.made != 1 || held(bd) != 1 {
		t.Errorf("%d tensors made (%d held), want 1 (none after the first problem)", b.made, held(bd))
	}
	err := bd.Err(2)
	msg := err.Error()
	for _, w := range []string{`"a"`, `"b"`, "... and 2 more problems"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	if strings.Contains(msg, `"c"`) {
		t.Errorf("error %q lists more than 2 problems", msg)
	}
	if all := bd.Err(10).Error(); !strings.Contains(all, `"c"`) || !strings.Contains(all, `"d"`) {
		t.Errorf("Err(10) = %q, want all four problems", all)
	}
	bd.Free()
	if held(bd) != 0 {
		t.Error("Free left tensors held")
	}
}

// TestRecord: a Binder without a source lists the tensors asked for, prefixed, and makes
// nothing.
func TestRecord(t *testing.T) {
	bd := bind.Record()
	bd.Linear("l", 4, 5)
	bd.SetPrefix("model.")
	bd.Vector("v", 3)
	bd.Weight("w", 1, 2, 3, 3, 3)
	bd.Matrix("m", 6, 7, true)
	bd.HostVector("h", 2)
	want := []weights.TensorSpec{
		{Name: "l", Shape: []int{4, 5}}, {Name: "model.v", Shape: []int{3}}, {Name: "model.w", Shape: []int{2, 3, 3, 3}},
		{Name: "model.m", Shape: []int{6, 7}}, {Name: "model.h", Shape: []int{2}},
	}
	got := bd.Specs()
	if !slices.EqualFunc(got, want, func(a, b weights.TensorSpec) bool { return a.Name == b.Name && slices.Equal(a.Shape, b.Shape) }) {
		t.Errorf("Specs = %v, want %v", got, want)
	}
	if bd.Failed() || bd.Err(1) != nil {
		t.Errorf("recording failed: %v", bd.Err(1))
	}
}

// TestMade: each dtype becomes the backend tensor it should, with the checkpoint's values.
func TestMade(t *testing.T) {
	b := backend(t)
	src := source(t)
	bd := bind.New(src, b)
	seq := []float32{1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		name  string
		t     gpu.Tensor
		dtype gpu.DType
		want  []float32
	}{
		{"bf16 stays bf16", bd.Linear("bf16", 2, 3), gpu.BF16, seq},
		{"f32 stays f32", bd.Linear("f32", 2, 3), gpu.F32, seq},
		{"f16 becomes f32", bd.Linear("f16", 2, 3), gpu.F32, seq},
		{"vector", bd.Vector("vec", 3), gpu.F32, seq[:3]},
		{"conv rows", bd.Weight("conv", 1, 2, 1, 1, 2), gpu.F32, []float32{1, 2}},
		{"upload", bd.Upload("std", []float32{9}), gpu.F32, []float32{9}},
	} {
		if tc.t.DType() != tc.dtype {
			t.Errorf("%s: dtype %v, want %v", tc.name, tc.t.DType(), tc.dtype)
			continue
		}
		got, err := gpu.ToHost(b, tc.t)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	q8 := bd.Linear("q8", 2, 32)
	if dt, _ := gpu.QuantByName("Q8_0"); q8.DType() != dt {
		t.Errorf("quantized Linear is %v, want it kept packed as Q8_0", q8.DType())
	}
	if w := bd.Weight("q8", 0, 2, 32); w.DType() != gpu.F32 {
		t.Errorf("quantized Weight is %v, want dequantized f32", w.DType())
	}
	if err := bd.Err(8); err != nil {
		t.Fatal(err)
	}
	if held(bd) != 8 {
		t.Errorf("%d tensors held, want 8", held(bd))
	}
	h := bd.Made()
	h.Free()

	// A backend refusing the packed type gets the dequantized float32 values.
	b.refuseQuant = true
	bd = bind.New(src, b)
	w := bd.Linear("q8", 2, 32)
	got, err := gpu.ToHost(b, w)
	want := make([]float32, 64)
	tq, _ := src.Tensor("q8")
	tq.ReadFloat32(want)
	if err != nil || w.DType() != gpu.F32 || !slices.Equal(got, want) || want[0] != 1 || want[32] != -1 {
		t.Errorf("refused Q8_0: %v %v (%v), want f32 %v", w.DType(), got, err, want)
	}
}

// TestHostMatrix: host matrices are views of BF16 and F32 data, quantized Linear weights stay
// packed, and so does a quantized table whose rows are whole blocks (an embedding, whose
// rows the caller decodes as it looks them up); each uploads to the same values.
func TestHostMatrix(t *testing.T) {
	b := backend(t)
	bd := bind.New(source(t), nil)
	bf := bd.Matrix("bf16", 2, 3, true)
	f := bd.Matrix("f32", 2, 3, false)
	q := bd.Matrix("q8", 2, 32, true)
	qf := bd.Matrix("q8", 2, 32, false)
	bd.SetPrefix("model.")
	pre := bd.HostVector("pre", 2)
	if err := bd.Err(8); err != nil {
		t.Fatal(err)
	}
	if len(bf.BF16) != 6 || bf.F32 != nil || len(f.F32) != 6 || q.Packed == nil || qf.Packed == nil || qf.F32 != nil {
		t.Fatalf("host matrices: bf16 %+v, f32 %+v, q8 linear %+v, q8 table %+v", bf, f, q, qf)
	}
	if !slices.Equal(pre, []float32{7, 8}) {
		t.Errorf("prefixed vector %v, want [7 8]", pre)
	}
	for _, m := range []bind.Matrix{bf, f} {
		w, err := m.Upload(b)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := gpu.ToHost(b, w)
		if !slices.Equal(got, []float32{1, 2, 3, 4, 5, 6}) {
			t.Errorf("uploaded %v", got)
		}
		b.Free(w)
	}
	if b.made != 2 {
		t.Errorf("a Binder without a backend made tensors (%d made)", b.made-2)
	}
}
