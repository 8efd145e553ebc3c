package gguf

import "kleinbild/internal/ggml"

import "fmt"

// Type is a ggml tensor type: how a tensor's elements are stored (GGUF tensor info field).
type Type uint32

// The ggml tensor types. Only the ones Dequantize supports (see Type.Dequantizable) can be
// read as float32; the others are known so that a file holding them is laid out and
// reported correctly.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
	MXFP4   Type = 39
)

// typeInfo is a type's name and block geometry (ggml's type_traits: blck_size, type_size).
type typeInfo struct {
	name        string
	blockElems  int
	blockBytes  int
	dequantizer func(dst []float32, src []byte)
}

var types = map[Type]typeInfo{
	F32:     {"F32", 1, 4, dequantF32},
	F16:     {"F16", 1, 2, dequantF16},
	Q4_0:    {"Q4_0", 32, 18, ggml.DequantQ4_0},
	Q4_1:    {"Q4_1", 32, 20, ggml.DequantQ4_1},
	Q5_0:    {"Q5_0", 32, 22, ggml.DequantQ5_0},
	Q5_1:    {"Q5_1", 32, 24, ggml.DequantQ5_1},
	Q8_0:    {"Q8_0", 32, 34, ggml.DequantQ8_0},
	Q8_1:    {"Q8_1", 32, 36, nil},
	Q2_K:    {"Q2_K", 256, 84, ggml.DequantQ2_K},
	Q3_K:    {"Q3_K", 256, 110, ggml.DequantQ3_K},
	Q4_K:    {"Q4_K", 256, 144, ggml.DequantQ4_K},
	Q5_K:    {"Q5_K", 256, 176, ggml.DequantQ5_K},
	Q6_K:    {"Q6_K", 256, 210, ggml.DequantQ6_K},
	Q8_K:    {"Q8_K", 256, 292, nil},
	IQ2_XXS: {"IQ2_XXS", 256, 66, nil},
	IQ2_XS:  {"IQ2_XS", 256, 74, nil},
	IQ3_XXS: {"IQ3_XXS", 256, 98, nil},
	IQ1_S:   {"IQ1_S", 256, 50, nil},
	IQ4_NL:  {"IQ4_NL", 32, 18, nil},
	IQ3_S:   {"IQ3_S", 256, 110, nil},
	IQ2_S:   {"IQ2_S", 256, 82, nil},
	IQ4_XS:  {"IQ4_XS", 256, 136, nil},
	I8:      {"I8", 1, 1, nil},
	I16:     {"I16", 1, 2, nil},
	I32:     {"I32", 1, 4, nil},
	I64:     {"I64", 1, 8, nil},
	F64:     {"F64", 1, 8, nil},
	IQ1_M:   {"IQ1_M", 256, 56, nil},
	BF16:    {"BF16", 1, 2, dequantBF16},
	TQ1_0:   {"TQ1_0", 256, 54, nil},
	TQ2_0:   {"TQ2_0", 256, 66, nil},
	MXFP4:   {"MXFP4", 32, 17, nil},
}

// String is ggml's name for the type ("Q4_K"), or "type(N)" for an unknown number.
func (t Type) String() string {
	if ti, ok := types[t]; ok {
		return ti.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Known reports whether t is a ggml type this package knows the layout of.
func (t Type) Known() bool { _, ok := types[t]; return ok }

// Dequantizable reports whether Dequantize can convert t to float32.
func (t Type) Dequantizable() bool { return types[t].dequantizer != nil }

// Block returns the number of elements in one block and its size in bytes (1 and the element
// size for the plain types F32, F16, BF16, ...); 0, 0 for an unknown type.
func (t Type) Block() (elems, bytes int) {
	ti := types[t]
	return ti.blockElems, ti.blockBytes
}

// RowBytes is the size of n consecutive elements of type t. n must be a whole number of
// blocks; the error says so otherwise, or names an unknown type or a size that overflows int.
func (t Type) RowBytes(n int) (int, error) {
	ti, ok := types[t]
	if !ok {
		return 0, fmt.Errorf("unknown ggml type %d", uint32(t))
	}
	if n < 0 || n%ti.blockElems != 0 {
		return 0, fmt.Errorf("%s: %d elements is not a whole number of %d-element blocks", ti.name, n, ti.blockElems)
	}
	blocks := n / ti.blockElems
	if blocks > maxInt/ti.blockBytes {
		return 0, fmt.Errorf("%s: %d elements overflow the size of a row", ti.name, n)
	}
	return blocks * ti.blockBytes, nil
}

const maxInt = int(^uint(0) >> 1)

// Dequantize converts the packed data src of type t to float32 values in dst, exactly as
// ggml's dequantize_row_* reference functions (and gguf-py) do. len(dst) must be a whole
// number of blocks and src exactly their size.
func Dequantize(t Type, dst []float32, src []byte) error {
	ti, ok := types[t]
	if !ok || ti.dequantizer == nil {
		return fmt.Errorf("dequantize: ggml type %s is not supported (supported: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K)", t)
	}
	want, err := t.RowBytes(len(dst))
	if err != nil {
		return fmt.Errorf("dequantize: %w", err)
	}
	if len(src) != want {
		return fmt.Errorf("dequantize: %d %s elements need %d bytes, got %d", len(dst), t, want, len(src))
	}
	ti.dequantizer(dst, src)
	return nil
}
