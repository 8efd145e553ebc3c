// Package ggml decodes ggml's block-quantized formats (Q4_0 ... Q8_0 and the K-quants, as
// GGUF files store them) to float32, bit-exactly as ggml-quants.c's dequantize_row_* do. It
// is the one copy both weights/gguf (reading files) and gpu/quant (the backends' packed
// weights) use; those two layers do not import each other.
package ggml

import (
	"encoding/binary"
	"math"
)

// The decoders below follow ggml-quants.c dequantize_row_* operation by operation, in
// float32. Every product that is followed by an addition or subtraction is wrapped in an
// explicit float32 conversion: Go may otherwise fuse a*b-c into one FMA on some
// architectures (arm64, ppc64, s390x), which changes the last bit.
//
// Callers guarantee len(dst) = blocks*blockElems and len(src) = blocks*blockBytes.

// Half converts IEEE binary16 bits to float32 exactly (subnormals, infinities and NaN
// payloads included), as ggml's GGML_FP16_TO_FP32 and numpy do.
func Half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	v := float32(man) * (1.0 / (1 << 24)) // exact: man < 2^10, scaling by a power of two
	if sign != 0 {
		v = -v
	}
	return v
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

// DequantQ4_0: block {d f16, qs[16]}; element j<16 is the low nibble of qs[j], j>=16 the
// high nibble of qs[j-16]; value (q-8)*d.
func DequantQ4_0(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[18*b:18*b+18], dst[32*b:32*b+32]
		d := Half(le16(blk))
		qs := blk[2:18]
		for j := range 16 {
			y[j] = float32(int(qs[j]&15)-8) * d
			y[j+16] = float32(int(qs[j]>>4)-8) * d
		}
	}
}

// DequantQ4_1: block {d f16, m f16, qs[16]}; value q*d + m.
func DequantQ4_1(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[20*b:20*b+20], dst[32*b:32*b+32]
		d, m := Half(le16(blk)), Half(le16(blk[2:]))
		qs := blk[4:20]
		for j := range 16 {
			y[j] = float32(float32(qs[j]&15)*d) + m
			y[j+16] = float32(float32(qs[j]>>4)*d) + m
		}
	}
}

// DequantQ5_0: block {d f16, qh u32, qs[16]}; the fifth bit of element j is bit j of qh;
// value (q-16)*d.
func DequantQ5_0(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[22*b:22*b+22], dst[32*b:32*b+32]
		d := Half(le16(blk))
		qh := binary.LittleEndian.Uint32(blk[2:])
		qs := blk[6:22]
		for j := range 16 {
			h0 := int((qh>>uint(j))<<4) & 0x10
			h1 := int(qh>>uint(j+12)) & 0x10
			y[j] = float32((int(qs[j]&15)|h0)-16) * d
			y[j+16] = float32((int(qs[j]>>4)|h1)-16) * d
		}
	}
}

// DequantQ5_1: block {d f16, m f16, qh u32, qs[16]}; value q*d + m.
func DequantQ5_1(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[24*b:24*b+24], dst[32*b:32*b+32]
		d, m := Half(le16(blk)), Half(le16(blk[2:]))
		qh := binary.LittleEndian.Uint32(blk[4:])
		qs := blk[8:24]
		for j := range 16 {
			h0 := int((qh>>uint(j))<<4) & 0x10
			h1 := int(qh>>uint(j+12)) & 0x10
			y[j] = float32(float32(int(qs[j]&15)|h0)*d) + m
			y[j+16] = float32(float32(int(qs[j]>>4)|h1)*d) + m
		}
	}
}

// DequantQ8_0: block {d f16, qs[32] int8}; value qs[j]*d.
func DequantQ8_0(dst []float32, src []byte) {
	for b := 0; b < len(dst)/32; b++ {
		blk, y := src[34*b:34*b+34], dst[32*b:32*b+32]
		d := Half(le16(blk))
		qs := blk[2:34]
		for j := range 32 {
			y[j] = float32(int8(qs[j])) * d
		}
	}
}
