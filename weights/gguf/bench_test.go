package gguf_test

import (
	"math/rand/v2"
	"testing"

	"kleinbild/weights/gguf"
)

// BenchmarkDequantize reports the reference decoders' speed on 1 Mi elements of random
// blocks (scales kept finite) per type; MB/s counts float32 output bytes.
func BenchmarkDequantize(b *testing.B) {
	const n = 1 << 20
	for _, ty := range goldenTypes {
		b.Run(ty.String(), func(b *testing.B) {
			size, err := ty.RowBytes(n)
			if err != nil {
				b.Fatal(err)
			}
			src := make([]byte, size)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range src {
				src[i] = byte(r.Uint32() & 0x3b) // keeps every f16 field finite
			}
			dst := make([]float32, n)
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := gguf.Dequantize(ty, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
