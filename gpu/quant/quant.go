// Package quant decodes the block-quantized weight formats of package gpu (ggml's Q4_0 ...
// Q6_K, as GGUF files store them) to float32, bit-exactly as ggml's dequantize_row_*
// reference functions do (the block decoders are internal/ggml's, shared with weights/gguf).
// Backends call it to dequantize weight tiles into their matrix products; its tests check it
// against weights/gguf.Dequantize and the golden dequantization data.
package quant

import (
	"fmt"

	"kleinbild/gpu"
	"kleinbild/internal/ggml"
)

// Dequantize converts the packed blocks src of the quantized dtype t to len(dst) float32
// values. len(dst) must be a whole number of blocks and src exactly their size.
func Dequantize(t gpu.DType, dst []float32, src []byte) error {
	f := Decoder(t)
	if f == nil {
		return fmt.Errorf("quant: %v is not a quantized type", t)
	}
	be, bb := t.Block()
	if len(dst)%be != 0 || len(src) != len(dst)/be*bb {
		return fmt.Errorf("quant: %d %v values need %d bytes in whole %d-value blocks, got %d bytes", len(dst), t, t.PackedBytes(len(dst)), be, len(src))
	}
	f(dst, src)
	return nil
}

// Decoder returns t's block decoder (nil for a type that is not quantized): it fills dst
// from src without checks, where len(dst) is a whole number of blocks and src holds them.
// The decoders are internal/ggml's table of types.
func Decoder(t gpu.DType) func(dst []float32, src []byte) {
	g, ok := t.GGML()
	if !ok {
		return nil
	}
	tr, _ := g.Traits()
	return tr.Decode
}

// F16 converts IEEE binary16 bits to float32 exactly, as ggml's GGML_FP16_TO_FP32 does.
func F16(h uint16) float32 { return ggml.Half(h) }
