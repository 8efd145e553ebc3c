#version 450
// The plain twin of attncm.comp (see attnf16.glsl): the same tiles, scales and float16
// roundings, S = Q·Kᵀ and T = P·V as float32 FMAs, 128 invocations, each holding 16
// elements of O in registers, so that devices without matrix units (lavapipe, CI) run and
// test the fast attention.
layout(local_size_x = 128) in;
#define HT float
#include "attnf16.glsl"

float oacc[16]; // O elements li + 128·u: row (li + 128·u) / DM, dim (li + 128·u) % DM

void scores(uint li, uint nw, uint dp) {
	for (uint e = li; e < BQ * BKY; e += nw) {
		uint r = e / BKY, j = e % BKY;
		float s = 0.0;
		for (uint c = 0u; c < dp; c++) { s += qh[r * DM + c] * kvh[j * DM + c]; }
		ss[e] = s;
	}
}

void initO(uint li, uint nw) {
	for (uint u = 0u; u < 16u; u++) { oacc[u] = 0.0; }
}

void accumulate(uint li, uint nw, uint dp, int cv, uint i0, uint j0, uint nkw, uint hk) {
	for (uint u = 0u; u < 16u; u++) {
		uint e = li + 128u * u;
		uint r = e / DM, c = e % DM;
		if (c >= dp) { continue; }
		float t = 0.0;
		for (uint j = 0u; j < BKY; j++) { t += ph[r * BKY + j] * kvh[j * DM + c]; }
		oacc[u] = oacc[u] * crow[r] + (t * pow2(-cv) + vfix(r, c, i0, j0, nkw, hk));
	}
}

void storeO(uint li, uint nw, uint i0, uint h) {
	for (uint u = 0u; u < 16u; u++) {
		uint e = li + 128u * u;
		uint r = e / DM, c = e % DM;
		if (i0 + r < p.seqQ && c < p.d) { o[p.ob + (i0 + r) * p.os + h * p.d + c] = final(r, oacc[u]); }
	}
}
