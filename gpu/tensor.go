package gpu

import (
	"fmt"
	"slices"
	"strings"

	"kleinbild/internal/ggml"
)

// DType is the element type of a Tensor.
type DType uint8

// The element types backends hold. Activations are always F32; weights are F32 or BF16
// (bfloat16: the upper 16 bits of a float32, as the checkpoints store them).
const (
	F32 DType = iota + 1
	BF16
)

// The quantized weight types: ggml's block formats as GGUF files store them (see
// WeightQuant), the Packed types of internal/ggml's table of types, numbered in its order
// from Q4_0. A tensor of one of them holds Len logical elements packed in whole blocks
// (DType.Block); only Linear takes them, as its weight.
const (
	Q4_0 DType = iota + 16
	Q4_1
	Q5_0
	Q5_1
	Q8_0
	Q2_K
	Q3_K
	Q4_K
	Q5_K
	Q6_K
)

// packed are ggml's Packed types with their rows, in order: quantized dtype Q4_0+i is
// packed[i]. Read only.
var packed = func() (rows []packedType) {
	for _, t := range ggml.PackedTypes() {
		tr, _ := t.Traits()
		rows = append(rows, packedType{t, tr})
	}
	return rows
}()

type packedType struct {
	t  ggml.Type
	tr ggml.Traits
}

// GGML is the ggml type of a quantized d (ok false for F32, BF16 and unknown dtypes).
func (d DType) GGML() (t ggml.Type, ok bool) {
	if i := int(d) - int(Q4_0); i >= 0 && i < len(packed) {
		return packed[i].t, true
	}
	return 0, false
}

// quantTraits is d's row of ggml's table (ok false when d is not quantized).
func (d DType) quantTraits() (ggml.Traits, bool) {
	if i := int(d) - int(Q4_0); i >= 0 && i < len(packed) {
		return packed[i].tr, true
	}
	return ggml.Traits{}, false
}

// QuantTypes lists the quantized dtypes, in the order of their constants.
func QuantTypes() []DType {
	ds := make([]DType, len(packed))
	for i := range ds {
		ds[i] = Q4_0 + DType(i)
	}
	return ds
}

// QuantByName returns the quantized dtype named name, case-insensitively ("Q8_0", "q4_k":
// ggml's type names).
func QuantByName(name string) (DType, bool) {
	for _, d := range QuantTypes() {
		if q, _ := d.quantTraits(); strings.EqualFold(q.Name, name) {
			return d, true
		}
	}
	return 0, false
}

// Quantized reports whether d is a block-quantized type.
func (d DType) Quantized() bool { _, ok := d.GGML(); return ok }

// Block returns the elements per block and bytes per block of d: (1, Size) for F32 and
// BF16, (0, 0) for an unknown type.
func (d DType) Block() (elems, bytes int) {
	if q, ok := d.quantTraits(); ok {
		return q.BlockElems, q.BlockBytes
	}
	if s := d.Size(); s > 0 {
		return 1, s
	}
	return 0, 0
}

// PackedBytes is the size of n elements of d (n a whole number of blocks; a partial last
// block counts whole).
func (d DType) PackedBytes(n int) int64 {
	be, bb := d.Block()
	if be == 0 {
		return 0
	}
	return int64((n+be-1)/be) * int64(bb)
}

// Size is the number of bytes per element (0 for the quantized types: see Block).
func (d DType) Size() int {
	switch d {
	case F32:
		return 4
	case BF16:
		return 2
	}
	return 0
}

func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case BF16:
		return "bf16"
	}
	if q, ok := d.quantTraits(); ok {
		return strings.ToLower(q.Name)
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Buffer is memory owned by one backend; Tensors are views into it. Each backend defines its
// own Buffer type and recognises only its own (an op given another backend's tensor fails).
type Buffer interface {
	// Bytes is the size of the buffer.
	Bytes() int64
}

// Tensor is a view of Len consecutive elements of a backend Buffer, starting at element
// Offset, with a dtype and a shape (whose product is Len). It is a small value: copy it
// freely. Slicing and reshaping make new views of the same memory; nothing is copied and the
// data is never on the host unless read back (Backend.Read).
//
// The zero Tensor is "no tensor": ops take it for optional operands (a Linear without bias).
type Tensor struct {
	buf   Buffer
	off   int
	n     int
	dtype DType
	shape []int // never modified after construction; nil means [n]
}

// NewTensor makes a view of n = product(shape) elements of buf from element off. It is for
// backends: models obtain tensors from a Backend (Alloc, Weight*).
func NewTensor(buf Buffer, off int, dtype DType, shape ...int) Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if len(shape) == 0 {
		n = 0
	}
	return Tensor{buf: buf, off: off, n: n, dtype: dtype, shape: slices.Clone(shape)}
}

// IsZero reports whether t is the zero Tensor ("no tensor").
func (t Tensor) IsZero() bool { return t.buf == nil }

// Buffer is the backend memory t views.
func (t Tensor) Buffer() Buffer { return t.buf }

// Offset is the index of t's first element in its Buffer.
func (t Tensor) Offset() int { return t.off }

// Len is the number of elements.
func (t Tensor) Len() int { return t.n }

// DType is the element type.
func (t Tensor) DType() DType { return t.dtype }

// Bytes is the size of the viewed elements (whole blocks for the quantized types).
func (t Tensor) Bytes() int64 { return t.dtype.PackedBytes(t.n) }

// Shape returns a copy of t's dimensions ([Len] for flat views).
func (t Tensor) Shape() []int {
	if t.shape == nil {
		return []int{t.n}
	}
	return slices.Clone(t.shape)
}

// Slice returns the flat view of elements [lo, hi) of t. Like slicing a Go slice, bounds
// outside [0, Len] are a programming error and panic.
func (t Tensor) Slice(lo, hi int) Tensor {
	if lo < 0 || hi < lo || hi > t.n {
		panic(fmt.Sprintf("gpu: Tensor.Slice(%d, %d) of %d elements", lo, hi, t.n))
	}
	return Tensor{buf: t.buf, off: t.off + lo, n: hi - lo, dtype: t.dtype}
}

// From returns the flat view of elements [lo, Len) of t (t[lo:]).
func (t Tensor) From(lo int) Tensor { return t.Slice(lo, t.n) }

// Rows returns rows [r0, r1) of t seen as a matrix of width-element rows (a flat view).
func (t Tensor) Rows(r0, r1, width int) Tensor { return t.Slice(r0*width, r1*width) }

// Reshape returns t with a new shape of the same number of elements; a mismatch panics.
func (t Tensor) Reshape(shape ...int) Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n != t.n || len(shape) == 0 {
		panic(fmt.Sprintf("gpu: Tensor.Reshape(%v) of %d elements", shape, t.n))
	}
	t.shape = slices.Clone(shape)
	return t
}

func (t Tensor) String() string {
	if t.IsZero() {
		return "Tensor(none)"
	}
	return fmt.Sprintf("Tensor(%s %v @%d)", t.dtype, t.Shape(), t.off)
}
