#version 450
// The per-row scales of the fast-precision Linear (linearf16.glsl): for each row r of
// x [rows, k], sh[r] such that the row's largest finite |x|·2^sh lies in [2^14, 2^15), the
// top binade of float16 (0 for a row without a finite non-zero value; clamped to
// [-100, 100]), stored as a float. One workgroup per row, a shared-memory max reduction.
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint rows, k, xb; } p;
layout(std430, binding = 0) buffer S { float sh[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };

shared float red[256];

void main() {
	uint r = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	if (r >= p.rows) { return; } // uniform in the workgroup: no barrier is skipped by some only
	uint li = gl_LocalInvocationIndex;
	float m = 0.0;
	for (uint i = li; i < p.k; i += 256u) {
		float v = abs(x[p.xb + r * p.k + i]);
		if (!isnan(v) && !isinf(v)) { m = max(m, v); }
	}
	red[li] = m;
	barrier();
	for (uint s = 128u; s > 0u; s >>= 1u) {
		if (li < s) { red[li] = max(red[li], red[li + s]); }
		barrier();
	}
	if (li == 0u) {
		int s = 0;
		if (red[0] > 0.0) { s = clamp(14 - (int((floatBitsToUint(red[0]) >> 23u) & 0xffu) - 127), -100, 100); }
		sh[r] = float(s);
	}
}
