package ggml

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Type is a ggml tensor type: how a tensor's elements are stored (the GGUF tensor info
// field, ggml's enum ggml_type).
type Type uint32

// The ggml tensor types. Only those with a decoder (Traits.Decode) can be read as float32;
// the others are known so that a file holding them is laid out and reported correctly.
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

// Traits is one row of the table of types (ggml's type_traits): the one place a type's
// name, geometry, decoder and GPU support are written. Adding a quantized type is a row
// here, its decoder, and (Packed) its WGSL loader in gpu/webgpu/quant.go.
type Traits struct {
	Name       string // ggml's name, e.g. "Q4_K"
	BlockElems int    // elements per block (blck_size); 1 for the plain types
	BlockBytes int    // bytes per block (type_size)
	// Decode fills dst from whole blocks src, bit-exactly as ggml's dequantize_row_* (nil:
	// not decoded here). Callers guarantee len(dst) = blocks·BlockElems and
	// len(src) = blocks·BlockBytes.
	Decode func(dst []float32, src []byte)
	// Packed marks the block-quantized types the backends keep packed (gpu's quantized
	// DTypes, numbered in table order: new ones go after the last): the CPU backend decodes
	// them with Decode, the WebGPU backend with its WGSL block loader.
	Packed bool
	// Scales are the byte offsets of a Packed block's float16 scales (d, and m or dmin
	// where the type has one): every other byte may hold any value (the backends'
	// conformance suite draws random blocks from it).
	Scales []int
}

// row is a Type and its Traits.
type row struct {
	t Type
	Traits
}

// table holds every known type, by number.
var table = []row{
	{F32, Traits{"F32", 1, 4, decodeF32, false, nil}},
	{F16, Traits{"F16", 1, 2, decodeF16, false, nil}},
	{Q4_0, Traits{"Q4_0", 32, 18, DequantQ4_0, true, []int{0}}},
	{Q4_1, Traits{"Q4_1", 32, 20, DequantQ4_1, true, []int{0, 2}}},
	{Q5_0, Traits{"Q5_0", 32, 22, DequantQ5_0, true, []int{0}}},
	{Q5_1, Traits{"Q5_1", 32, 24, DequantQ5_1, true, []int{0, 2}}},
	{Q8_0, Traits{"Q8_0", 32, 34, DequantQ8_0, true, []int{0}}},
	{Q8_1, Traits{"Q8_1", 32, 36, nil, false, nil}},
	{Q2_K, Traits{"Q2_K", 256, 84, DequantQ2_K, true, []int{80, 82}}},
	{Q3_K, Traits{"Q3_K", 256, 110, DequantQ3_K, true, []int{108}}},
	{Q4_K, Traits{"Q4_K", 256, 144, DequantQ4_K, true, []int{0, 2}}},
	{Q5_K, Traits{"Q5_K", 256, 176, DequantQ5_K, true, []int{0, 2}}},
	{Q6_K, Traits{"Q6_K", 256, 210, DequantQ6_K, true, []int{208}}},
	{Q8_K, Traits{"Q8_K", 256, 292, nil, false, nil}},
	{IQ2_XXS, Traits{"IQ2_XXS", 256, 66, nil, false, nil}},
	{IQ2_XS, Traits{"IQ2_XS", 256, 74, nil, false, nil}},
	{IQ3_XXS, Traits{"IQ3_XXS", 256, 98, nil, false, nil}},
	{IQ1_S, Traits{"IQ1_S", 256, 50, nil, false, nil}},
	{IQ4_NL, Traits{"IQ4_NL", 32, 18, nil, false, nil}},
	{IQ3_S, Traits{"IQ3_S", 256, 110, nil, false, nil}},
	{IQ2_S, Traits{"IQ2_S", 256, 82, nil, false, nil}},
	{IQ4_XS, Traits{"IQ4_XS", 256, 136, nil, false, nil}},
	{I8, Traits{"I8", 1, 1, nil, false, nil}},
	{I16, Traits{"I16", 1, 2, nil, false, nil}},
	{I32, Traits{"I32", 1, 4, nil, false, nil}},
	{I64, Traits{"I64", 1, 8, nil, false, nil}},
	{F64, Traits{"F64", 1, 8, nil, false, nil}},
	{IQ1_M, Traits{"IQ1_M", 256, 56, nil, false, nil}},
	{BF16, Traits{"BF16", 1, 2, decodeBF16, false, nil}},
	{TQ1_0, Traits{"TQ1_0", 256, 54, nil, false, nil}},
	{TQ2_0, Traits{"TQ2_0", 256, 66, nil, false, nil}},
	{MXFP4, Traits{"MXFP4", 32, 17, nil, false, nil}},
}

// Traits returns t's row of the table; ok is false for a type this package does not know.
func (t Type) Traits() (tr Traits, ok bool) {
	for _, r := range table {
		if r.t == t {
			return r.Traits, true
		}
	}
	return Traits{}, false
}

// PackedTypes lists the Packed types, in table order (gpu's quantized DTypes follow it).
func PackedTypes() []Type {
	var out []Type
	for _, r := range table {
		if r.Packed {
			out = append(out, r.t)
		}
	}
	return out
}

// Decodable lists the names of the types with a decoder, in table order.
func Decodable() []string {
	var out []string
	for _, r := range table {
		if r.Decode != nil {
			out = append(out, r.Name)
		}
	}
	return out
}

// ByName returns the type named name, case-insensitively ("Q8_0", "q4_k").
func ByName(name string) (Type, bool) {
	for _, r := range table {
		if strings.EqualFold(r.Name, name) {
			return r.t, true
		}
	}
	return 0, false
}

// String is ggml's name for the type ("Q4_K"), or "type(N)" for an unknown number.
func (t Type) String() string {
	if tr, ok := t.Traits(); ok {
		return tr.Name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Known reports whether t is a type this package knows the layout of.
func (t Type) Known() bool { _, ok := t.Traits(); return ok }

// Dequantizable reports whether t has a decoder (Traits.Decode).
func (t Type) Dequantizable() bool { tr, _ := t.Traits(); return tr.Decode != nil }

// Block returns the number of elements in one block and its size in bytes (1 and the
// element size for the plain types F32, F16, BF16, ...); 0, 0 for an unknown type.
func (t Type) Block() (elems, bytes int) {
	tr, _ := t.Traits()
	return tr.BlockElems, tr.BlockBytes
}

// RowBytes is the size of n consecutive elements of type t. n must be a whole number of
// blocks; the error says so otherwise, or names an unknown type or a size that overflows int.
func (t Type) RowBytes(n int) (int, error) {
	tr, ok := t.Traits()
	if !ok {
		return 0, fmt.Errorf("unknown ggml type %d", uint32(t))
	}
	if n < 0 || n%tr.BlockElems != 0 {
		return 0, fmt.Errorf("%s: %d elements is not a whole number of %d-element blocks", tr.Name, n, tr.BlockElems)
	}
	blocks := n / tr.BlockElems
	if blocks > maxInt/tr.BlockBytes {
		return 0, fmt.Errorf("%s: %d elements overflow the size of a row", tr.Name, n)
	}
	return blocks * tr.BlockBytes, nil
}

const maxInt = int(^uint(0) >> 1)

// Row decoders of the plain types.

func decodeF32(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func decodeF16(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = Half(le16(src[2*i:]))
	}
}

func decodeBF16(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(le16(src[2*i:])) << 16)
	}
}
