// The shared part of the fast-precision Conv2D: convcm.comp (matrix units,
// GL_NV_cooperative_matrix) and convf16.comp, its plain twin. Both compute the implicit GEMM
// of conv.comp, out[oc, pix] = 2^-s·Σ_k f16(w[oc, k])·f16(col[k, pix]·2^s) (+ bias[oc]),
// k = (ic, kh, kw), in tiles of 64 channels × 64 pixels per workgroup, k in steps of 32
// through shared memory, with float32 sums. The input is scaled by one power of two 2^s, the
// least of its channels' scales (rowscale.comp over the channels): the largest finite |x|
// lands in float16's top binade, so FLUX's VAE activations do not overflow, and float16's
// 2^29 of normal range below that keeps every value that matters to the sum at its full 11
// bits. Weights (f32 or bf16) are rounded to float16 unscaled (the VAE's lie well inside its
// normal range). Push constants are conv.comp's with the channel count and the scales' index.
layout(push_constant) uniform P { uint oc, npix, k, ib, ob, wb, bb, hasB, inH, inW, kh, kw, stride, padT, padL, outW, bf16, inC, sb; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Wt { uint W[]; };
layout(std430, binding = 3) readonly buffer B { float bias[]; };
layout(std430, binding = 4) readonly buffer S { float sh[]; };
#define NO_QUANT // weights are f32 or bf16 (p.bf16 is the kind)
#include "gemm.glsl"
#include "f16.glsl"

// BK is the k step of a tile.
const uint BK = 32u;

shared int smin[256]; // the channels' scales, reduced to their least in smin[0]

// inputScale returns s, the least scale of the input's channels (nw invocations, li this
// one's index; every invocation must call it).
int inputScale(uint li, uint nw) {
	int m = 100;
	for (uint c = li; c < p.inC; c += nw) { m = min(m, int(sh[p.sb + c])); }
	smin[li] = m;
	barrier();
	if (li == 0u) {
		for (uint i = 1u; i < nw; i++) { m = min(m, smin[i]); }
		smin[0] = m;
	}
	barrier();
	return smin[0];
}

// wval is f16(w[c0 + cc, gk]) (0 outside w).
float wval(uint c0, uint cc, uint gk) {
	if (c0 + cc >= p.oc || gk >= p.k) { return 0.0; }
	return f16round(wload(p.wb + (c0 + cc) * p.k + gk, p.bf16));
}

// colval is f16(col[gk, p0 + pp]·2^s): the input value under kernel tap gk of output pixel
// p0 + pp (0 in the padding and outside the product).
float colval(uint p0, uint pp, uint gk, int s) {
	uint pix = p0 + pp;
	if (pix >= p.npix || gk >= p.k) { return 0.0; }
	uint kk2 = p.kh * p.kw;
	uint ic = gk / kk2;
	uint rem = gk % kk2;
	int iy = int((pix / p.outW) * p.stride + rem / p.kw) - int(p.padT);
	int ix = int((pix % p.outW) * p.stride + rem % p.kw) - int(p.padL);
	if (iy < 0 || ix < 0 || uint(iy) >= p.inH || uint(ix) >= p.inW) { return 0.0; }
	return f16round(x[p.ib + (ic * p.inH + uint(iy)) * p.inW + uint(ix)] * pow2(s));
}

// store writes output (c0 + cc, p0 + pp) of the tile from its scaled sum acc.
void store(uint c0, uint p0, uint cc, uint pp, float acc, int s) {
	uint oc = c0 + cc, pix = p0 + pp;
	if (oc >= p.oc || pix >= p.npix) { return; }
	float o = acc * pow2(-s);
	if (p.hasB != 0u) { o = o + bias[p.bb + oc]; }
	y[p.ob + oc * p.npix + pix] = o;
}
