package gputest

import "kleinbild/gpu"

// Counting is a gpu.Backend that counts the tensors made on it (allocations and weights),
// so that a test can bound the work done before a failure by counting it, not by timing it.
type Counting struct {
	gpu.Backend
	Tensors int
}

// Alloc counts, then allocates on the wrapped backend.
func (b *Counting) Alloc(dt gpu.DType, shape ...int) (gpu.Tensor, error) {
	b.Tensors++
	return b.Backend.Alloc(dt, shape...)
}

// WeightF32 counts, then uploads on the wrapped backend.
func (b *Counting) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	b.Tensors++
	return b.Backend.WeightF32(data, shape...)
}

// WeightBF16 counts, then uploads on the wrapped backend.
func (b *Counting) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	b.Tensors++
	return b.Backend.WeightBF16(bits, shape...)
}
