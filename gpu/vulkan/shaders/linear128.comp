#version 450
// Linear on larger products: the same sums as linear.comp (same push constants and modes)
// in tiles of 128 rows × 128 outputs per workgroup, 16×16 invocations with 8×8 outputs each,
// k in steps of 16 through shared memory: twice the arithmetic per shared-memory read.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { uint rows, n, k, xb, yb, wb, bb, mode, ys, bf16; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
#define NO_QUANT // f32 and bf16 weights (quantized ones run linearq.comp)
#include "gemm.glsl"

// ROW adds a·(b0, b1) to row i of the block (written out: constant indices keep acc in
// registers).
#define ROW(i, a) acc[2 * i] += (a) * b0; acc[2 * i + 1] += (a) * b1;

shared float xs[2048]; // [16 k][128 rows]
shared float ws[2048]; // [16 k][128 outputs]

void main() {
	uint c0 = gl_WorkGroupID.x * 128u;
	uint r0 = gl_WorkGroupID.y * 128u;
	uint li = gl_LocalInvocationIndex;
	uvec2 lid = gl_LocalInvocationID.xy;
	vec4 acc[16]; // row i of the 8×8 block: acc[2i], acc[2i + 1]
	for (uint i = 0u; i < 16u; i++) { acc[i] = vec4(0.0); }
	for (uint k0 = 0u; k0 < p.k; k0 += 16u) {
		for (uint i = 0u; i < 8u; i++) {
			uint e = li + 256u * i;
			uint rr = e >> 4u;
			uint kk = e & 15u;
			uint gk = k0 + kk;
			float xv = 0.0;
			if (r0 + rr < p.rows && gk < p.k) { xv = x[p.xb + (r0 + rr) * p.k + gk]; }
			xs[kk * 128u + rr] = xv;
			float wv = 0.0;
			if (c0 + rr < p.n && gk < p.k) { wv = wload(p.wb + (c0 + rr) * p.k + gk, p.bf16); }
			ws[kk * 128u + rr] = wv;
		}
		barrier();
		for (uint kk = 0u; kk < 16u; kk++) {
			uint xo = kk * 128u + lid.y * 8u;
			uint wo = kk * 128u + lid.x * 8u;
			vec4 a0 = vec4(xs[xo], xs[xo + 1u], xs[xo + 2u], xs[xo + 3u]);
			vec4 a1 = vec4(xs[xo + 4u], xs[xo + 5u], xs[xo + 6u], xs[xo + 7u]);
			vec4 b0 = vec4(ws[wo], ws[wo + 1u], ws[wo + 2u], ws[wo + 3u]);
			vec4 b1 = vec4(ws[wo + 4u], ws[wo + 5u], ws[wo + 6u], ws[wo + 7u]);
			ROW(0, a0.x) ROW(1, a0.y) ROW(2, a0.z) ROW(3, a0.w)
			ROW(4, a1.x) ROW(5, a1.y) ROW(6, a1.z) ROW(7, a1.w)
		}
		barrier();
	}
	for (uint i = 0u; i < 8u; i++) {
		uint r = r0 + lid.y * 8u + i;
		if (r >= p.rows) { continue; }
		for (uint j = 0u; j < 8u; j++) {
			uint c = c0 + lid.x * 8u + j;
			if (c >= p.n) { continue; }
			float o = acc[2u * i + j / 4u][j % 4u];
			uint yi = p.yb + r * p.ys + c;
			if (p.mode == 1u) { o = o + bias[p.bb + c]; }
			if (p.mode == 2u) { o = y[yi] + uintBitsToFloat(p.bb) * o; }
			y[yi] = o;
		}
	}
}
