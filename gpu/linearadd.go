package gpu

// LinearAdder is implemented by backends that add a product into an existing output in one
// pass (the CPU backend: a GEMM with beta 1; WebGPU: Linear's kernels, reading y in their
// epilogue). LoRA's second factor uses it (package lora):
// a Linear into scratch followed by AddScaled writes the product out and reads it back, which
// cost a rank-32 adapter about 4 % of a denoising step on a CPU.
type LinearAdder interface {
	// LinearAdd computes y[rows, out] += s·(x[rows, in]·wᵀ) for w [out, in] (F32, BF16 or a
	// quantized dtype, as Linear takes it), the products summed in float32 (the rounding
	// of the scaled sum and the add may differ from AddScaled's). y must not overlap x.
	LinearAdd(y, x, w Tensor, rows int, s float32)
}
