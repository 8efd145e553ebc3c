// wload reads element i of the weight W (binding 2): f32, or with bf16 set a bfloat16 widened
// exactly (the upper half of a float32), two per 32-bit word.
float wload(uint i, uint bf16) {
	if (bf16 != 0u) {
		uint w = W[i >> 1u];
		return uintBitsToFloat((i & 1u) == 0u ? (w << 16u) : (w & 0xffff0000u));
	}
	return uintBitsToFloat(W[i]);
}
