// Float16 rounding in float32 arithmetic, shared by the fast-precision Linear kernels (the
// matrix-unit one and its twin) and emulated bit for bit by the Go tests (f16_test.go).

// pow2 is 2^e as a float32, for e in [-126, 127].
float pow2(int e) { return uintBitsToFloat(uint(e + 127) << 23u); }

// f16round rounds v to the nearest float16 value, ties to even, returned as float32: ±Inf
// beyond the float16 range (above 65504 after rounding), subnormals in steps of 2^-24, NaN and
// ±Inf unchanged. Every step is exact in float32, so the result does not depend on the
// device's rounding of conversions.
float f16round(float v) {
	if (isnan(v) || isinf(v)) { return v; }
	int e = max(int((floatBitsToUint(v) >> 23u) & 0xffu) - 127, -14);
	float r = roundEven(v * pow2(10 - e)) * pow2(e - 10);
	if (abs(r) > 65504.0) { return uintBitsToFloat((floatBitsToUint(v) & 0x80000000u) | 0x7f800000u); }
	return r;
}
