#ifndef NO_QUANT
#include "quant.glsl"
#endif

// wload reads element i of the weight W (binding 2) of kind: 0 f32, 1 bf16 widened exactly
// (the upper half of a float32, two per 32-bit word), 2 and up a quantized type (quant.glsl; not in
// kernels defining NO_QUANT).
float wload(uint i, uint kind) {
	if (kind == 0u) { return uintBitsToFloat(W[i]); }
	if (kind == 1u) {
		uint w = W[i >> 1u];
		return uintBitsToFloat((i & 1u) == 0u ? (w << 16u) : (w & 0xffff0000u));
	}
#ifdef NO_QUANT
	return 0.0;
#else
	return wquant(i, kind);
#endif
}
