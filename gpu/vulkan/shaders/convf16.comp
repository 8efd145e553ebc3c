#version 450
// The plain twin of convcm.comp (see convf16.glsl): the same tiles, scale and float16
// roundings, the products as float32 FMAs (16×16 invocations, 4 channels × 4 pixels each),
// so that devices without matrix units (lavapipe, CI) run and test the fast precision.
layout(local_size_x = 16, local_size_y = 16) in;
#include "convf16.glsl"

shared float ws[BK * 64u]; // [k][channel]
shared float cs[BK * 64u]; // [k][pixel]

void main() {
	uint p0 = gl_WorkGroupID.x * 64u;
	uint c0 = gl_WorkGroupID.y * 64u;
	uint li = gl_LocalInvocationIndex;
	uvec2 lid = gl_LocalInvocationID.xy;
	int s = inputScale(li, 256u);
	float acc[16];
	for (uint i = 0u; i < 16u; i++) { acc[i] = 0.0; }
	for (uint k0 = 0u; k0 < p.k; k0 += BK) {
		for (uint e = li; e < BK * 64u; e += 256u) {
			uint rr = e / BK, kk = e % BK;
			ws[kk * 64u + rr] = wval(c0, rr, k0 + kk);
			cs[kk * 64u + rr] = colval(p0, rr, k0 + kk, s);
		}
		barrier();
		for (uint kk = 0u; kk < BK; kk++) {
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
		for (uint j = 0u; j < 4u; j++) {
			store(c0, p0, lid.y * 4u + i, lid.x * 4u + j, acc[i * 4u + j], s);
		}
	}
}
