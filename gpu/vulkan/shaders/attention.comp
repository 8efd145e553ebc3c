#version 450
// Attention with online softmax (flash-attention style: no score matrix), a port of
// ../../webgpu/attention.wgsl. One invocation per (query, head, slice of up to 32 output
// dims): it walks the visible keys once, computing each score over the whole head dim,
// keeping the running maximum m, the running sum l of exp(s − m) and the 32 weighted value
// sums, rescaled when m grows. Masked keys (causal, beyond the visible count nk) are never
// visited, so they weigh exactly 0; a query that sees no key gets 0, one with a NaN or +Inf
// score NaN.
//
// The per-lane loops inside the key loop are written out (LANES) and the dot product takes
// 16 values per iteration, because llvmpipe stops any loop after 65535 iterations in total
// per invocation.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint seqQ, nk, heads, group, d, qs, ks, vs, os, qb, kb, vb, ob, causal, slices; float scale; } p;
layout(std430, binding = 0) buffer O { float o[]; };
layout(std430, binding = 1) readonly buffer Q { float q[]; };
layout(std430, binding = 2) readonly buffer K { float k[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };

// badScore tells a NaN or +Inf score by its bits (a compiler may assume that comparisons never
// see NaN): such a score makes its query's output NaN. −Inf weighs 0.
bool badScore(float x) {
	uint b = floatBitsToUint(x);
	return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}

#define LANES8(F, o) F(o) F(o + 1) F(o + 2) F(o + 3) F(o + 4) F(o + 5) F(o + 6) F(o + 7)
#define LANES(F) LANES8(F, 0) LANES8(F, 8) LANES8(F, 16) LANES8(F, 24)
#define RESCALE(e) acc[e] *= corr;
#define ACCUM(e) acc[e] += pe * v[vo + min(uint(e), dn - 1u)];
#define DOT4(e) dot(vec4(q[qo + e], q[qo + e + 1u], q[qo + e + 2u], q[qo + e + 3u]), vec4(k[ko + e], k[ko + e + 1u], k[ko + e + 2u], k[ko + e + 3u]))

void main() {
	uint idx = gid();
	if (idx >= p.seqQ * p.heads * p.slices) { return; }
	uint sl = idx % p.slices;
	uint t = idx / p.slices;
	uint h = t % p.heads;
	uint i = t / p.heads;
	uint kvh = h / p.group;
	uint qo = p.qb + i * p.qs + h * p.d;
	uint d0 = sl * 32u;
	uint dn = min(32u, p.d - d0);
	uint nk = p.nk;
	if (p.causal != 0u) { nk = min(nk, i + 1u); }
	float acc[32];
	for (uint j = 0u; j < 32u; j++) { acc[j] = 0.0; }
	float m = -3.0e38;
	float l = 0.0;
	bool bad = false;
	for (uint j = 0u; j < nk; j++) {
		uint ko = p.kb + j * p.ks + kvh * p.d;
		float s = 0.0;
		uint e = 0u;
		for (; e + 16u <= p.d; e += 16u) {
			s += DOT4(e);
			s += DOT4(e + 4u);
			s += DOT4(e + 8u);
			s += DOT4(e + 12u);
		}
		for (; e < p.d; e++) { s += q[qo + e] * k[ko + e]; }
		s = s * p.scale;
		if (badScore(s)) { bad = true; continue; }
		if (s > m) {
			float corr = expf(m - s);
			l = l * corr;
			LANES(RESCALE)
			m = s;
		}
		float pe = expf(s - m);
		l += pe;
		uint vo = p.vb + j * p.vs + kvh * p.d + d0;
		LANES(ACCUM)
	}
	float inv = 0.0;
	if (nk > 0u) { inv = 1.0 / l; }
	uint oo = p.ob + i * p.os + h * p.d + d0;
	for (uint e2 = 0u; e2 < dn; e2++) { o[oo + e2] = bad ? uintBitsToFloat(0x7fc00000u) : acc[e2] * inv; }
}
