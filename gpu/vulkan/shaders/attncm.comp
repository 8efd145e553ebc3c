#version 450
// The fast-precision attention on matrix units (see attnf16.glsl; twin: attnf16.comp):
// S = Q·Kᵀ and T = P·V from float16 tiles in shared memory into float32 accumulators through
// GL_NV_cooperative_matrix, the LM × LN output blocks shared out among four subgroups, k in
// steps of LK (specialization constants from the device's VkCooperativeMatrixPropertiesNV;
// selected only where LM divides 16 and LN and LK divide 32). O and T live in shared memory
// in float32.
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
layout(constant_id = 0) const uint LM = 16;
layout(constant_id = 1) const uint LN = 16;
layout(constant_id = 2) const uint LK = 16;
layout(local_size_x_id = 3) in;
#define HT float16_t
#include "attnf16.glsl"

// scope 3 is gl_ScopeSubgroup (whose name would need GL_KHR_memory_scope_semantics)
#define ACC fcoopmatNV<32, 3, LM, LN>

shared float osh[BQ * DM]; // O: [query][dim]
shared float tsh[BQ * DM]; // T = P·V of the tile

void scores(uint li, uint nw, uint dp) {
	uint nb = BKY / LN;
	for (uint b = gl_SubgroupID; b < (BQ / LM) * nb; b += gl_NumSubgroups) {
		uint i = b / nb, j = b % nb;
		ACC acc = ACC(0.0);
		for (uint kk = 0u; kk < dp; kk += LK) {
			fcoopmatNV<16, 3, LM, LK> a;
			fcoopmatNV<16, 3, LK, LN> bm;
			coopMatLoadNV(a, qh, i * LM * DM + kk, DM, false);
			coopMatLoadNV(bm, kvh, j * LN * DM + kk, DM, true); // Kᵀ: [key][dim] is column-major
			acc = coopMatMulAddNV(a, bm, acc);
		}
		coopMatStoreNV(acc, ss, i * LM * BKY + j * LN, BKY, false);
	}
}

void initO(uint li, uint nw) {
	for (uint e = li; e < BQ * DM; e += nw) { osh[e] = 0.0; }
}

void accumulate(uint li, uint nw, uint dp, int cv, uint i0, uint j0, uint nkw, uint hk) {
	uint nb = dp / LN;
	for (uint b = gl_SubgroupID; b < (BQ / LM) * nb; b += gl_NumSubgroups) {
		uint i = b / nb, j = b % nb;
		ACC acc = ACC(0.0);
		for (uint kk = 0u; kk < BKY; kk += LK) {
			fcoopmatNV<16, 3, LM, LK> a;
			fcoopmatNV<16, 3, LK, LN> bm;
			coopMatLoadNV(a, ph, i * LM * BKY + kk, BKY, false);
			coopMatLoadNV(bm, kvh, kk * DM + j * LN, DM, false);
			acc = coopMatMulAddNV(a, bm, acc);
		}
		coopMatStoreNV(acc, tsh, i * LM * DM + j * LN, DM, false);
	}
	barrier();
	for (uint e = li; e < BQ * DM; e += nw) {
		uint r = e / DM, c = e % DM;
		if (c < dp) { osh[e] = osh[e] * crow[r] + (tsh[e] * pow2(-cv) + vfix(r, c, i0, j0, nkw, hk)); }
	}
}

void storeO(uint li, uint nw, uint i0, uint h) {
	for (uint e = li; e < BQ * DM; e += nw) {
		uint r = e / DM, c = e % DM;
		if (i0 + r < p.seqQ && c < p.d) { o[p.ob + (i0 + r) * p.os + h * p.d + c] = final(r, osh[e]); }
	}
}
