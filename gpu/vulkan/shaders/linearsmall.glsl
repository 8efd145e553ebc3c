// The body of linearsmall.comp and linearsmallq.comp: Linear for at most 8 rows (a
// matrix-vector product in effect), where a 64-row tile would do mostly padding. One
// workgroup of 64 invocations per 4 outputs: each invocation sums every 64th k for all rows
// and the 4 outputs, each weight decoded once, then a tree reduction in shared memory. Same
// push constants and modes as linear.glsl.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint rows, n, k, xb, yb, wb, bb, mode, ys, bf16; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
#include "gemm.glsl"

shared vec4 red[512]; // [8 rows][64 invocations]: the partial sums of the 4 outputs

void main() {
	uint c0 = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 4u;
	if (c0 >= p.n) { return; }
	uint li = gl_LocalInvocationIndex;
	vec4 acc[8];
	for (uint r = 0u; r < 8u; r++) { acc[r] = vec4(0.0); }
	for (uint kk = li; kk < p.k; kk += 64u) {
		vec4 w = vec4(0.0);
		for (uint j = 0u; j < 4u; j++) {
			if (c0 + j < p.n) { w[j] = wload(p.wb + (c0 + j) * p.k + kk, p.bf16); }
		}
		for (uint r = 0u; r < 8u; r++) {
			if (r < p.rows) { acc[r] += x[p.xb + r * p.k + kk] * w; }
		}
	}
	for (uint r = 0u; r < 8u; r++) { red[r * 64u + li] = acc[r]; }
	barrier();
	for (uint s = 32u; s > 0u; s >>= 1u) {
		if (li < s) {
			for (uint r = 0u; r < 8u; r++) { red[r * 64u + li] += red[r * 64u + li + s]; }
		}
		barrier();
	}
	if (li < 32u) {
		uint r = li / 4u;
		uint j = li % 4u;
		uint c = c0 + j;
		if (r < p.rows && c < p.n) {
			float o = red[r * 64u][j];
			uint yi = p.yb + r * p.ys + c;
			if (p.mode == 1u) { o = o + bias[p.bb + c]; }
			if (p.mode == 2u) { o = y[yi] + uintBitsToFloat(p.bb) * o; }
			y[yi] = o;
		}
	}
}
