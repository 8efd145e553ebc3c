// The shared part of the fast-precision Linear on bf16 weights: linearcm.comp (matrix units,
// GL_NV_cooperative_matrix) and linearf16.comp, its plain twin. Both compute
// y[r, o] = 2^-sh[r]·Σ_k f16(x[r, k]·2^sh[r])·f16(w[o, k]) (+ bias[o]) in tiles of 64 rows ×
// 64 outputs per workgroup, k in steps of 32 through shared memory, with float32 sums: x is
// scaled per row by a power of two (rowscale.comp; FLUX's activations overflow float16
// unscaled) and both operands are rounded to float16 (f16.glsl) before any product. The
// bf16 weights are exact in float16 within its range (8 bits of mantissa in 11). Modes and
// push constants are those of linear.comp (mode 1 adds the bias, mode 2 stores
// y + s·o with s's bits in bb); sb indexes the scales.
layout(push_constant) uniform P { uint rows, n, k, xb, yb, wb, bb, mode, ys, sb; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
layout(std430, binding = 4) readonly buffer S { float sh[]; };
#include "f16.glsl"

// BK is the k step of a tile.
const uint BK = 32u;

shared int rsh[64]; // the tile's row scales

// loadScales fills rsh for the tile's rows (0 past the last row); a barrier must follow.
void loadScales(uint r0, uint li) {
	if (li < 64u) { rsh[li] = r0 + li < p.rows ? int(sh[p.sb + r0 + li]) : 0; }
}

// xval is f16(x[r0 + rr, gk]·2^sh) (0 outside x).
float xval(uint r0, uint rr, uint gk) {
	if (r0 + rr >= p.rows || gk >= p.k) { return 0.0; }
	return f16round(x[p.xb + (r0 + rr) * p.k + gk] * pow2(rsh[rr]));
}

// wval is f16(w[c0 + cc, gk]) of the bf16 weight (0 outside w).
float wval(uint c0, uint cc, uint gk) {
	if (c0 + cc >= p.n || gk >= p.k) { return 0.0; }
	uint i = p.wb + (c0 + cc) * p.k + gk;
	uint w = W[i >> 1u];
	return f16round(uintBitsToFloat((i & 1u) == 0u ? (w << 16u) : (w & 0xffff0000u)));
}

// store writes output (r0 + rr, c0 + cc) of the tile from its scaled sum acc.
void store(uint r0, uint c0, uint rr, uint cc, float acc) {
	uint r = r0 + rr, c = c0 + cc;
	if (r >= p.rows || c >= p.n) { return; }
	float o = acc * pow2(-rsh[rr]);
	uint yi = p.yb + r * p.ys + c;
	if (p.mode == 1u) { o = o + bias[p.bb + c]; }
	if (p.mode == 2u) { o = y[yi] + uintBitsToFloat(p.bb) * o; }
	y[yi] = o;
}
