package gpu

import (
	"fmt"
	"slices"
)

// DType is the element type of a Tensor.
type DType uint8

// The element types backends hold. Activations are always F32; weights are F32 or BF16
// (bfloat16: the upper 16 bits of a float32, as the checkpoints store them).
const (
	F32 DType = iota + 1
	BF16
)

// Size is the number of bytes per element.
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

// Bytes is the size of the viewed elements.
func (t Tensor) Bytes() int64 { return int64(t.n) * int64(t.dtype.Size()) }

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
