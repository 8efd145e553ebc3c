//go:build !amd64 || purego

package cpu

// widenBF16 converts bfloat16 bits to float32: dst[i] = bf16(src[i]) for i < len(src).
func widenBF16(dst []float32, src []uint16) { widenBF16Go(dst, src) }
