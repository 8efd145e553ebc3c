//go:build amd64 && !purego

package cpu

import "kleinbild/gpu/cpu/internal/cpufeat"

//go:noescape
func widenBF16AVX2(dst []float32, src []uint16)

// widenBF16 converts bfloat16 bits to float32: dst[i] = bf16(src[i]) for i < len(src). On AVX2
// machines the bulk goes 16 values per instruction pair (zero-extend, shift).
func widenBF16(dst []float32, src []uint16) {
	n16 := len(src) &^ 15
	if !cpufeat.AVX2FMA() || n16 == 0 {
		widenBF16Go(dst, src)
		return
	}
	widenBF16AVX2(dst[:n16], src[:n16])
	widenBF16Go(dst[n16:], src[n16:])
}
