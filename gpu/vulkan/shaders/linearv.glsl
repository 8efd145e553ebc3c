// The body of linearv.comp and linearvi.comp: Linear on bf16 weights with vector loads, a
// port of the WebGPU backend's generated tile t128x128-r8x8-k16-v4-s4 (../../webgpu/
// gemm_wgsl.go), the same sums as linear128.comp (same push constants and modes). 128 rows ×
// 128 outputs per workgroup of 256 invocations, each owning 8×8 outputs as 2×2 blocks of 4×4
// (rows ty·4 + i and ty·4 + 64 + i, columns likewise with tx), k in steps of 16:
//   - x is read a vec4 and W a uvec4 (8 bf16 values, widened with a shift and a mask) at a
//     time, which needs k a multiple of 8 and the offsets xb of 4 and wb of 8 (the dispatcher
//     checks);
//   - the next step's values are fetched into registers while this step's are multiplied;
//   - the tiles are stored transposed in shared memory as vec4s and read a vec4 at a time;
//   - INTERIOR (linearvi.comp) drops every bounds check: the dispatcher runs it on whole
//     tiles only and the edges with the checks.
// Every output is summed in k order in float32.
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint rows, n, k, xb, yb, wb, bb, mode, ys, bf16; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { vec4 x4[]; };
layout(std430, binding = 2) readonly buffer Wt { uvec4 w8[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };

shared vec4 As[528]; // [16 k][132 rows] (4 of them padding)
shared vec4 Bs[512]; // [16 k][128 outputs]

// MAC adds the products of step kk's row values a (4 rows) and output values b0, b1.
#define MAC(i, a) acc[2 * i] += (a) * b0; acc[2 * i + 1] += (a) * b1;

// store writes the outputs of row r (rows of block i of the thread, columns c, c + 1, ...).
void store(uint r, uint c, vec4 o) {
#ifndef INTERIOR
	if (r >= p.rows) { return; }
#endif
	for (uint j = 0u; j < 4u; j++) {
#ifndef INTERIOR
		if (c + j >= p.n) { return; }
#endif
		float v = o[j];
		uint yi = p.yb + r * p.ys + c + j;
		if (p.mode == 1u) { v = v + bias[p.bb + c + j]; }
		if (p.mode == 2u) { v = y[yi] + uintBitsToFloat(p.bb) * v; }
		y[yi] = v;
	}
}

void main() {
	uint m0 = gl_WorkGroupID.y * 128u;
	uint n0 = gl_WorkGroupID.x * 128u;
	uint li = gl_LocalInvocationIndex;
	uint tx = li % 16u;
	uint ty = li / 16u;
	// x: 128 rows × 4 vec4s per step, two per invocation (rows ar and ar + 64); W: 128 rows ×
	// 2 uvec4s, one per invocation
	uint ar = li / 4u;
	uint ak = (li % 4u) * 4u;
	uint ap = p.xb + (m0 + ar) * p.k + ak;
	uint ap1 = ap + 64u * p.k;
	uint br = li / 2u;
	uint bk = (li % 2u) * 8u;
	uint bp = p.wb + (n0 + br) * p.k + bk;
#ifndef INTERIOR
	bool aok = m0 + ar < p.rows;
	bool aok1 = m0 + ar + 64u < p.rows;
	bool bok = n0 + br < p.n;
#endif
	vec4 acc[16]; // block row i: acc[2i] (columns tx·4 + j), acc[2i + 1] (tx·4 + 64 + j)
	for (uint i = 0u; i < 16u; i++) { acc[i] = vec4(0.0); }
	uint nt = (p.k + 15u) / 16u;
	vec4 av = vec4(0.0), av1 = vec4(0.0);
	uvec4 bv = uvec4(0u);
#ifdef INTERIOR
	av = x4[ap >> 2u];
	av1 = x4[ap1 >> 2u];
	bv = w8[bp >> 3u];
#else
	if (aok && ak < p.k) { av = x4[ap >> 2u]; }
	if (aok1 && ak < p.k) { av1 = x4[ap1 >> 2u]; }
	if (bok && bk < p.k) { bv = w8[bp >> 3u]; }
#endif
	for (uint t = 0u; t < nt; t++) {
		for (uint j = 0u; j < 4u; j++) {
			uint si = (ak + j) * 132u + ar;
			As[si >> 2u][si & 3u] = av[j];
			si += 64u;
			As[si >> 2u][si & 3u] = av1[j];
		}
		vec4 lo = uintBitsToFloat(bv << 16u);
		vec4 hi = uintBitsToFloat(bv & 0xffff0000u);
		for (uint j = 0u; j < 4u; j++) {
			uint si = (bk + 2u * j) * 128u + br;
			Bs[si >> 2u][si & 3u] = lo[j];
			si += 128u;
			Bs[si >> 2u][si & 3u] = hi[j];
		}
		barrier();
		if (t + 1u < nt) {
			uint k0 = (t + 1u) * 16u;
#ifdef INTERIOR
			av = x4[(ap + k0) >> 2u];
			av1 = x4[(ap1 + k0) >> 2u];
			bv = w8[(bp + k0) >> 3u];
#else
			av = vec4(0.0);
			av1 = vec4(0.0);
			bv = uvec4(0u);
			if (aok && k0 + ak < p.k) { av = x4[(ap + k0) >> 2u]; }
			if (aok1 && k0 + ak < p.k) { av1 = x4[(ap1 + k0) >> 2u]; }
			if (bok && k0 + bk < p.k) { bv = w8[(bp + k0) >> 3u]; }
#endif
		}
		for (uint kk = 0u; kk < 16u; kk++) {
			vec4 a0 = As[kk * 33u + ty];
			vec4 a1 = As[kk * 33u + ty + 16u];
			vec4 b0 = Bs[kk * 32u + tx];
			vec4 b1 = Bs[kk * 32u + tx + 16u];
			MAC(0, a0.x) MAC(1, a0.y) MAC(2, a0.z) MAC(3, a0.w)
			MAC(4, a1.x) MAC(5, a1.y) MAC(6, a1.z) MAC(7, a1.w)
		}
		barrier();
	}
	for (uint i = 0u; i < 8u; i++) {
		uint r = m0 + ty * 4u + (i % 4u) + (i / 4u) * 64u;
		store(r, n0 + tx * 4u, acc[2u * i]);
		store(r, n0 + tx * 4u + 64u, acc[2u * i + 1u]);
	}
}
