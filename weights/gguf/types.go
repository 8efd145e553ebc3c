package gguf

import (
	"fmt"
	"strings"

	"kleinbild/internal/ggml"
)

// Type is a ggml tensor type: how a tensor's elements are stored (GGUF tensor info field).
// Its names, block geometry and decoders are internal/ggml's table of types.
type Type = ggml.Type

// The ggml tensor types (ggml.Type). Only the ones Dequantize supports (see
// Type.Dequantizable) can be read as float32; the others are known so that a file holding
// them is laid out and reported correctly.
const (
	F32     = ggml.F32
	F16     = ggml.F16
	Q4_0    = ggml.Q4_0
	Q4_1    = ggml.Q4_1
	Q5_0    = ggml.Q5_0
	Q5_1    = ggml.Q5_1
	Q8_0    = ggml.Q8_0
	Q8_1    = ggml.Q8_1
	Q2_K    = ggml.Q2_K
	Q3_K    = ggml.Q3_K
	Q4_K    = ggml.Q4_K
	Q5_K    = ggml.Q5_K
	Q6_K    = ggml.Q6_K
	Q8_K    = ggml.Q8_K
	IQ2_XXS = ggml.IQ2_XXS
	IQ2_XS  = ggml.IQ2_XS
	IQ3_XXS = ggml.IQ3_XXS
	IQ1_S   = ggml.IQ1_S
	IQ4_NL  = ggml.IQ4_NL
	IQ3_S   = ggml.IQ3_S
	IQ2_S   = ggml.IQ2_S
	IQ4_XS  = ggml.IQ4_XS
	I8      = ggml.I8
	I16     = ggml.I16
	I32     = ggml.I32
	I64     = ggml.I64
	F64     = ggml.F64
	IQ1_M   = ggml.IQ1_M
	BF16    = ggml.BF16
	TQ1_0   = ggml.TQ1_0
	TQ2_0   = ggml.TQ2_0
	MXFP4   = ggml.MXFP4
)

// Dequantize converts the packed data src of type t to float32 values in dst, exactly as
// ggml's dequantize_row_* reference functions (and gguf-py) do. len(dst) must be a whole
// number of blocks and src exactly their size.
func Dequantize(t Type, dst []float32, src []byte) error {
	tr, ok := t.Traits()
	if !ok || tr.Decode == nil {
		return fmt.Errorf("dequantize: ggml type %s is not supported (supported: %s)", t, strings.Join(ggml.Decodable(), ", "))
	}
	want, err := t.RowBytes(len(dst))
	if err != nil {
		return fmt.Errorf("dequantize: %w", err)
	}
	if len(src) != want {
		return fmt.Errorf("dequantize: %d %s elements need %d bytes, got %d", len(dst), t, want, len(src))
	}
	tr.Decode(dst, src)
	return nil
}

const maxInt = int(^uint(0) >> 1)
