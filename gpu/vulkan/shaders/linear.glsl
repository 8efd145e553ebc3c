// The body of linear.comp and linearq.comp. Linear: y[r, o] = Σ_k x[r, k]·w[o, k] (+ bias[o]) for rows × n outputs in float32 (a port
// of ../../webgpu/linear.wgsl): tiles of 64 rows × 64 outputs per workgroup (16×16
// invocations, 4×4 outputs each), k in steps of 16 through shared memory. mode 1 adds the
// bias, mode 2 (LinearAdd) stores y + s·o with s's bits in bb.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { uint rows, n, k, xb, yb, wb, bb, mode, ys, bf16; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
#include "gemm.glsl"

shared float xs[1024]; // [16 k][64 rows]
shared float ws[1024]; // [16 k][64 outputs]

void main() {
	uint c0 = gl_WorkGroupID.x * 64u;
	uint r0 = gl_WorkGroupID.y * 64u;
	uint li = gl_LocalInvocationIndex;
	uvec2 lid = gl_LocalInvocationID.xy;
	float acc[16];
	for (uint i = 0u; i < 16u; i++) { acc[i] = 0.0; }
	for (uint k0 = 0u; k0 < p.k; k0 += 16u) {
		for (uint i = 0u; i < 4u; i++) {
			uint e = li + 256u * i;
			uint rr = e >> 4u;
			uint kk = e & 15u;
			uint gk = k0 + kk;
			float xv = 0.0;
			if (r0 + rr < p.rows && gk < p.k) { xv = x[p.xb + (r0 + rr) * p.k + gk]; }
			xs[kk * 64u + rr] = xv;
			float wv = 0.0;
			if (c0 + rr < p.n && gk < p.k) { wv = wload(p.wb + (c0 + rr) * p.k + gk, p.bf16); }
			ws[kk * 64u + rr] = wv;
		}
		barrier();
		for (uint kk = 0u; kk < 16u; kk++) {
			vec4 a = vec4(xs[kk * 64u + lid.y * 4u], xs[kk * 64u + lid.y * 4u + 1u], xs[kk * 64u + lid.y * 4u + 2u], xs[kk * 64u + lid.y * 4u + 3u]);
			vec4 bv = vec4(ws[kk * 64u + lid.x * 4u], ws[kk * 64u + lid.x * 4u + 1u], ws[kk * 64u + lid.x * 4u + 2u], ws[kk * 64u + lid.x * 4u + 3u]);
			for (uint i = 0u; i < 4u; i++) {
				acc[i * 4u] += a[i] * bv.x;
				acc[i * 4u + 1u] += a[i] * bv.y;
				acc[i * 4u + 2u] += a[i] * bv.z;
				acc[i * 4u + 3u] += a[i] * bv.w;
			}
		}
		barrier();
	}
	for (uint i = 0u; i < 4u; i++) {
		uint r = r0 + lid.y * 4u + i;
		if (r >= p.rows) { continue; }
		for (uint j = 0u; j < 4u; j++) {
			uint c = c0 + lid.x * 4u + j;
			if (c >= p.n) { continue; }
			float o = acc[i * 4u + j];
			uint yi = p.yb + r * p.ys + c;
			if (p.mode == 1u) { o = o + bias[p.bb + c]; }
			if (p.mode == 2u) { o = y[yi] + uintBitsToFloat(p.bb) * o; }
			y[yi] = o;
		}
	}
}
