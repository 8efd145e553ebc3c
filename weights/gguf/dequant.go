package gguf

import (
	"encoding/binary"
	"math"

	"kleinbild/internal/ggml"
)

// Row decoders of the plain types; the quantized blocks are decoded by internal/ggml.

// f16 converts IEEE binary16 bits to float32 exactly (ggml.F16).
func f16(h uint16) float32 { return ggml.F16(h) }

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

func dequantF32(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func dequantF16(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = f16(le16(src[2*i:]))
	}
}

func dequantBF16(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(le16(src[2*i:])) << 16)
	}
}
