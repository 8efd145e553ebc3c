#version 450
// Conv2D as an implicit GEMM (a port of ../../webgpu/conv.wgsl): out[oc, pix] =
// Σ_k w[oc, k]·col[k, pix] + bias[oc], k = (ic, kh, kw), the im2col value gathered from the
// input on the fly (zero in the padding). Tiles of 64 channels × 64 pixels per workgroup
// (16×16 invocations, 4×4 each), k in steps of 16 through shared memory.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { uint oc, npix, k, ib, ob, wb, bb, hasB, inH, inW, kh, kw, stride, padT, padL, outW, bf16; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
#define NO_QUANT // weights are f32 or bf16 (p.bf16 is the kind)
#include "gemm.glsl"

shared float ws[1024]; // [16 k][64 channels]
shared float cs[1024]; // [16 k][64 pixels]

void main() {
	uint p0 = gl_WorkGroupID.x * 64u;
	uint c0 = gl_WorkGroupID.y * 64u;
	uint li = gl_LocalInvocationIndex;
	uvec2 lid = gl_LocalInvocationID.xy;
	uint kk2 = p.kh * p.kw;
	float acc[16];
	for (uint i = 0u; i < 16u; i++) { acc[i] = 0.0; }
	for (uint k0 = 0u; k0 < p.k; k0 += 16u) {
		for (uint i = 0u; i < 4u; i++) {
			uint e = li + 256u * i;
			uint rr = e >> 4u;
			uint kk = e & 15u;
			uint gk = k0 + kk;
			float wv = 0.0;
			if (c0 + rr < p.oc && gk < p.k) { wv = wload(p.wb + (c0 + rr) * p.k + gk, p.bf16); }
			ws[kk * 64u + rr] = wv;
			float cv = 0.0;
			uint pix = p0 + rr;
			if (pix < p.npix && gk < p.k) {
				uint ic = gk / kk2;
				uint rem = gk % kk2;
				int iy = int((pix / p.outW) * p.stride + rem / p.kw) - int(p.padT);
				int ix = int((pix % p.outW) * p.stride + rem % p.kw) - int(p.padL);
				if (iy >= 0 && ix >= 0 && uint(iy) < p.inH && uint(ix) < p.inW) {
					cv = x[p.ib + (ic * p.inH + uint(iy)) * p.inW + uint(ix)];
				}
			}
			cs[kk * 64u + rr] = cv;
		}
		barrier();
		for (uint kk = 0u; kk < 16u; kk++) {
			vec4 a = vec4(ws[kk * 64u + lid.y * 4u], ws[kk * 64u + lid.y * 4u + 1u], ws[kk * 64u + lid.y * 4u + 2u], ws[kk * 64u + lid.y * 4u + 3u]);
			vec4 bv = vec4(cs[kk * 64u + lid.x * 4u], cs[kk * 64u + lid.x * 4u + 1u], cs[kk * 64u + lid.x * 4u + 2u], cs[kk * 64u + lid.x * 4u + 3u]);
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
		uint oc = c0 + lid.y * 4u + i;
		if (oc >= p.oc) { continue; }
		for (uint j = 0u; j < 4u; j++) {
			uint pix = p0 + lid.x * 4u + j;
			if (pix >= p.npix) { continue; }
			float o = acc[i * 4u + j];
			if (p.hasB != 0u) { o = o + bias[p.bb + oc]; }
			y[p.ob + oc * p.npix + pix] = o;
		}
	}
}
