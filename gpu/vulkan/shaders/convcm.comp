#version 450
// The fast-precision Conv2D on matrix units (see convf16.glsl; twin: convf16.comp): the
// implicit GEMM's float16 weights (A, [channel][k]) and im2col values (B, stored
// [pixel][k]: column-major K × N) in shared memory, float32 accumulators, through
// GL_NV_cooperative_matrix, tiled as linearcm.comp: four subgroups, each 32 channels × 32
// pixels of the 64 × 64 tile as (32/LM)·(32/LN) accumulators of LM × LN, k in steps of LK
// (specialization constants from the device's VkCooperativeMatrixPropertiesNV), the sums
// through shared memory to the epilogue (unscale, bias).
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
layout(constant_id = 0) const uint LM = 16;
layout(constant_id = 1) const uint LN = 16;
layout(constant_id = 2) const uint LK = 16;
layout(local_size_x_id = 3) in;
#include "convf16.glsl"

const uint NA = 32u / LM; // accumulator rows per subgroup
const uint NB = 32u / LN; // accumulator columns per subgroup
// scope 3 is gl_ScopeSubgroup (whose name would need GL_KHR_memory_scope_semantics)
#define ACC fcoopmatNV<32, 3, LM, LN>

shared float16_t as_[64u * BK]; // A: [channel][k]
shared float16_t bs[64u * BK];  // B as [pixel][k]
shared float cs[64u * 64u];     // the sums: [channel][pixel]

void main() {
	uint p0 = gl_WorkGroupID.x * 64u;
	uint c0 = gl_WorkGroupID.y * 64u;
	uint li = gl_LocalInvocationIndex;
	uint nw = gl_WorkGroupSize.x;
	uint sm = (gl_SubgroupID >> 1u) * 32u, sn = (gl_SubgroupID & 1u) * 32u;
	int s = inputScale(li, nw);
	ACC acc[NA * NB];
	for (uint i = 0u; i < NA * NB; i++) { acc[i] = ACC(0.0); }
	for (uint k0 = 0u; k0 < p.k; k0 += BK) {
		for (uint e = li; e < BK * 64u; e += nw) {
			uint rr = e / BK, kk = e % BK;
			as_[e] = float16_t(wval(c0, rr, k0 + kk)); // exact: already a float16 value
			bs[e] = float16_t(colval(p0, rr, k0 + kk, s));
		}
		barrier();
		for (uint kk = 0u; kk < BK; kk += LK) {
			fcoopmatNV<16, 3, LM, LK> a[NA];
			for (uint i = 0u; i < NA; i++) { coopMatLoadNV(a[i], as_, (sm + i * LM) * BK + kk, BK, false); }
			for (uint j = 0u; j < NB; j++) {
				fcoopmatNV<16, 3, LK, LN> bm;
				coopMatLoadNV(bm, bs, (sn + j * LN) * BK + kk, BK, true);
				for (uint i = 0u; i < NA; i++) { acc[i * NB + j] = coopMatMulAddNV(a[i], bm, acc[i * NB + j]); }
			}
		}
		barrier();
	}
	for (uint i = 0u; i < NA; i++) {
		for (uint j = 0u; j < NB; j++) {
			coopMatStoreNV(acc[i * NB + j], cs, (sm + i * LM) * 64u + sn + j * LN, 64u, false);
		}
	}
	barrier();
	for (uint e = li; e < 64u * 64u; e += nw) { store(c0, p0, e / 64u, e % 64u, cs[e], s); }
}
