#version 450
// The plain twin of attncm.comp (see attnf16.glsl): the same tiles, scales and float16
// roundings, S = Q·Kᵀ and T = P·V as float32 FMAs, 128 invocations, each holding a column
// of O (16 rows) in registers, so that devices without matrix units (lavapipe, CI) run and
// test the fast attention.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 128) in;
#define HT float
#include "attnf16.glsl"

float oacc[16]; // O column li of rows 0..15 (li < dp)

// scores: invocation li computes key li % 32 for rows li / 32 + 4·u, each K value loaded once
// for its four rows.
void scores(uint li, uint nw, uint dp) {
	uint j = li % BKY, r0 = li / BKY;
	float s[4] = float[4](0.0, 0.0, 0.0, 0.0);
	for (uint c = 0u; c < dp; c++) {
		float kv = kvh[j * DM + c];
		[[unroll]] for (uint u = 0u; u < 4u; u++) { s[u] += qh[(r0 + 4u * u) * DM + c] * kv; }
	}
	[[unroll]] for (uint u = 0u; u < 4u; u++) { ss[(r0 + 4u * u) * BKY + j] = s[u]; }
}

void initO(uint li, uint nw) {
	[[unroll]] for (uint u = 0u; u < 16u; u++) { oacc[u] = 0.0; }
}

// accumulate: invocation li owns column li of the 16 rows, each V value loaded once.
void accumulate(uint li, uint nw, uint dp, int cv, uint i0, uint j0, uint nkw, uint hk) {
	if (li >= dp) { return; }
	float t[16];
	[[unroll]] for (uint u = 0u; u < 16u; u++) { t[u] = 0.0; }
	for (uint j = 0u; j < BKY; j++) {
		float vv = kvh[j * DM + li];
		[[unroll]] for (uint u = 0u; u < 16u; u++) { t[u] += ph[u * BKY + j] * vv; }
	}
	[[unroll]] for (uint u = 0u; u < 16u; u++) { oacc[u] = oacc[u] * crow[u] + (t[u] * pow2(-cv) + vfix(u, li, i0, j0, nkw, hk)); }
}

void storeO(uint li, uint nw, uint i0, uint h) {
	if (li >= p.d) { return; }
	[[unroll]] for (uint u = 0u; u < 16u; u++) {
		if (i0 + u < p.seqQ) { o[p.ob + (i0 + u) * p.os + h * p.d + li] = final(u, oacc[u]); }
	}
}
