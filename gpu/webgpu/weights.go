//go:build cgo

package webgpu

// Weight loaders prepended to the kernels that read a weight at binding 3: wload(i) returns
// element i as float32. bf16 weights are packed two per 32-bit word, element 2j in the low
// half; widening is exact (the bf16 bits are the upper half of the float32).
const (
	wloadF32 = `@group(0) @binding(3) var<storage, read> w: array<f32>;
fn wload(i: u32) -> f32 { return w[i]; }
`
	wloadBF16 = `@group(0) @binding(3) var<storage, read> w: array<u32>;
fn wload(i: u32) -> f32 {
	let u = w[i >> 1u];
	if ((i & 1u) == 0u) { return bitcast<f32>(u << 16u); }
	return bitcast<f32>(u & 0xffff0000u);
}
`
)
