// The shared part of the fast-precision attention: attncm.comp (matrix units,
// GL_NV_cooperative_matrix) and attnf16.comp, its plain twin, for head dims up to 128. A
// workgroup owns 16 queries of a head and walks the key tiles of 32 keys its queries can see,
// as flash.glsl does, with float16 operands and float32 sums and softmax:
//  1. Q (once), then each K and V tile, is scaled by one power of two (its largest finite |x|
//     into float16's top binade, as rowscale.comp) and rounded to float16 (f16.glsl) into
//     shared memory, the head dim padded with zeros to a multiple of 32 (dp; columns from dp
//     to DM are never read).
//  2. S = Q·Kᵀ (the kernel's scores()), unscaled in float32; the online softmax in base 2,
//     one invocation per query row (softmaxRow): p = f16(2^(s − m)), l sums those p.
//  3. T = P·V (the kernel's accumulate()), and O = O·2^(m_old − m) + T·2^-v in float32;
//     a NaN or ±Inf in V enters as 0 and is added back by vfix for the rows that see it.
// Finally out = O / l (0 where no key is visible; NaN where a score was NaN or +Inf).
// Masked keys weigh exactly 0.
// Push constants are flash.glsl's (the scale carries log2 e).
layout(push_constant) uniform P { uint seqQ, nk, heads, group, d, qs, ks, vs, os, qb, kb, vb, ob, causal, qblocks; float scale2; } p;
layout(std430, binding = 0) buffer O { float o[]; };
layout(std430, binding = 1) readonly buffer Q { float q[]; };
layout(std430, binding = 2) readonly buffer K { float k[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };
#include "f16.glsl"

const uint BQ = 16u;  // queries per workgroup
const uint BKY = 32u; // keys per tile
const uint DM = 128u; // the largest head dim, the row stride of qh and kvh

shared HT qh[BQ * DM];    // f16(Q·2^aq): [query][dim]
shared HT kvh[BKY * DM];  // f16(K·2^bk), then f16(V·2^cv): [key][dim]
shared float ss[BQ * BKY]; // the scores: [query][key]
shared HT ph[BQ * BKY];   // P: [query][key]
shared float red[512];    // the tile maxima's reduction: K's in [0, 256), V's in [256, 512)
shared vec2 red2[32];     // its second level
shared float mrow[BQ], lrow[BQ], crow[BQ];
shared uint badrow[BQ];
shared uint vbad; // the V tile holds a NaN or ±Inf (stored as 0 in kvh; vfix adds them)

// The kernel's parts: scores() fills ss from qh and kvh (K); initO(), accumulate() and
// storeO() keep O.
void scores(uint li, uint nw, uint dp);
void initO(uint li, uint nw);
void accumulate(uint li, uint nw, uint dp, int cv, uint i0, uint j0, uint nkw, uint hk);
void storeO(uint li, uint nw, uint i0, uint h);

// exp2f is flash.glsl's 2^x (0 below 2^-126).
float exp2f(float x) {
	if (!(x >= -126.0)) {
		if (isnan(x)) { return x; }
		return 0.0;
	}
	float n = roundEven(min(x, 127.0));
	float r = x - n;
	float px = (((((1.535336188319500e-4 * r + 1.339887440266574e-3) * r + 9.618437357674640e-3) * r + 5.550332471162809e-2) * r + 2.402264791363012e-1) * r + 6.931472028550421e-1) * r;
	return (1.0 + px) * uintBitsToFloat(uint(int(n) + 127) << 23u);
}

// badScore tells a NaN or +Inf score by its bits.
bool badScore(float x) {
	uint b = floatBitsToUint(x);
	return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}

// finiteAbs is |x|, 0 for NaN and ±Inf (told by the bits).
float finiteAbs(float x) { return (floatBitsToUint(x) & 0x7fffffffu) >= 0x7f800000u ? 0.0 : abs(x); }

// shiftOf is the scale of a tile whose largest finite |x| is t: t·2^shift lies in
// [2^14, 2^15) (0 for an all-zero tile; clamped to [-100, 100]).
int shiftOf(float t) {
	if (t == 0.0) { return 0; }
	return clamp(14 - (int((floatBitsToUint(t) >> 23u) & 0xffu) - 127), -100, 100);
}

// tileShifts returns the scales (shiftOf) of two tiles whose invocations' largest finite |x|
// are m.x and m.y, in two levels of shared memory (two barriers: llvmpipe pays for each).
// Every invocation calls it (nw ≤ 256, a multiple of 32); red and red2 are next written after further barriers.
ivec2 tileShifts(vec2 m, uint li, uint nw) {
	red[li] = m.x;
	red[256u + li] = m.y;
	barrier();
	if (li < 32u) {
		vec2 r = vec2(0.0);
		for (uint i = li; i < nw; i += 32u) { r = max(r, vec2(red[i], red[256u + i])); }
		red2[li] = r;
	}
	barrier();
	vec2 t = vec2(0.0);
	for (uint i = 0u; i < 32u; i++) { t = max(t, red2[i]); }
	return ivec2(shiftOf(t.x), shiftOf(t.y));
}

// qval, kval and vval read element e of query row i or key j of the workgroup's head (0
// beyond the head dim and the rows).
float qval(uint i, uint h, uint e) { return i < p.seqQ && e < p.d ? q[p.qb + i * p.qs + h * p.d + e] : 0.0; }
float kval(uint j, uint nkw, uint hk, uint e) { return j < nkw && e < p.d ? k[p.kb + j * p.ks + hk * p.d + e] : 0.0; }
float vval(uint j, uint nkw, uint hk, uint e) { return j < nkw && e < p.d ? v[p.vb + j * p.vs + hk * p.d + e] : 0.0; }

// softmaxRow updates row r (query i0 + r) with the scores of key tile j0 (scaled by
// 2^(aq + bk)): its maximum, the rescale factor crow, P and l.
void softmaxRow(uint r, uint i0, uint j0, int aq, int bk) {
	uint qi = i0 + r;
	uint vis = 0u;
	if (qi < p.seqQ) { vis = p.causal != 0u ? min(p.nk, qi + 1u) : p.nk; }
	uint n = vis > j0 ? min(vis - j0, BKY) : 0u;
	float mo = mrow[r], mn = mo;
	for (uint j = 0u; j < n; j++) {
		float s = ss[r * BKY + j] * pow2(-aq) * pow2(-bk) * p.scale2;
		ss[r * BKY + j] = s;
		if (badScore(s)) { badrow[r] = 1u; } else { mn = max(mn, s); }
	}
	float corr = exp2f(mo - mn);
	float l = lrow[r] * corr;
	for (uint j = 0u; j < BKY; j++) {
		float pj = 0.0;
		if (j < n && !badScore(ss[r * BKY + j])) { pj = f16round(exp2f(ss[r * BKY + j] - mn)); }
		l += pj;
		ph[r * BKY + j] = HT(pj);
	}
	mrow[r] = mn;
	lrow[r] = l;
	crow[r] = corr;
}

// vfix is what the non-finite values of the V tile at j0 add to element (r, c) of T·2^-v:
// Σ p·v over the keys row r sees (0·Inf is NaN there, as in the exact kernel); 0 when the
// tile has none (vbad). The matrix product leaves them out, so that a key masked for some
// rows of the tile cannot reach them as 0·Inf.
float vfix(uint r, uint c, uint i0, uint j0, uint nkw, uint hk) {
	if (vbad == 0u) { return 0.0; }
	uint qi = i0 + r;
	uint vis = 0u;
	if (qi < p.seqQ) { vis = p.causal != 0u ? min(p.nk, qi + 1u) : p.nk; }
	float f = 0.0;
	for (uint j = 0u; j < BKY && j0 + j < vis; j++) {
		float x = vval(j0 + j, nkw, hk, c);
		if ((floatBitsToUint(x) & 0x7fffffffu) >= 0x7f800000u) { f += float(ph[r * BKY + j]) * x; }
	}
	return f;
}

// vload is the float16 of V value x scaled by 2^cv for kvh: 0 for NaN and ±Inf, which it
// flags in vbad.
HT vload(float x, int cv) {
	if ((floatBitsToUint(x) & 0x7fffffffu) >= 0x7f800000u) {
		atomicOr(vbad, 1u);
		return HT(0.0);
	}
	return HT(f16round(x * pow2(cv)));
}

// final is output element (row r, O value acc) as stored: O / l, 0 without visible keys, NaN
// after a bad score.
float final(uint r, float acc) {
	if (badrow[r] != 0u) { return uintBitsToFloat(0x7fc00000u); }
	return lrow[r] > 0.0 ? acc / lrow[r] : 0.0;
}

void main() {
	uint blk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	if (blk >= p.qblocks * p.heads) { return; }
	uint li = gl_LocalInvocationIndex;
	uint nw = gl_WorkGroupSize.x;
	uint h = blk % p.heads;
	uint i0 = (blk / p.heads) * BQ;
	uint hk = h / p.group;
	uint dp = (p.d + 31u) / 32u * 32u;
	uint nkw = p.nk;
	if (p.causal != 0u) { nkw = min(nkw, i0 + BQ); }
	// Tiles are walked as rows from li / 32 in steps of nw / 32 and columns from li % 32 in
	// steps of 32 (no division by the run-time dp: llvmpipe pays dearly for those).
	uint r0 = li / 32u, rs = nw / 32u, c0 = li % 32u;
	float m = 0.0;
	for (uint r = r0; r < BQ; r += rs) {
		for (uint c = c0; c < dp; c += 32u) { m = max(m, finiteAbs(qval(i0 + r, h, c))); }
	}
	int aq = tileShifts(vec2(m, 0.0), li, nw).x;
	for (uint r = r0; r < BQ; r += rs) {
		for (uint c = c0; c < dp; c += 32u) { qh[r * DM + c] = HT(f16round(qval(i0 + r, h, c) * pow2(aq))); }
	}
	if (li < BQ) {
		mrow[li] = -3.0e38;
		lrow[li] = 0.0;
		badrow[li] = 0u;
	}
	initO(li, nw);
	for (uint j0 = 0u; j0 < nkw; j0 += BKY) {
		if (li == 0u) { vbad = 0u; }
		vec2 mkv = vec2(0.0);
		for (uint r = r0; r < BKY; r += rs) {
			for (uint c = c0; c < dp; c += 32u) {
				mkv = max(mkv, vec2(finiteAbs(kval(j0 + r, nkw, hk, c)), finiteAbs(vval(j0 + r, nkw, hk, c))));
			}
		}
		ivec2 sh = tileShifts(mkv, li, nw);
		for (uint r = r0; r < BKY; r += rs) {
			for (uint c = c0; c < dp; c += 32u) { kvh[r * DM + c] = HT(f16round(kval(j0 + r, nkw, hk, c) * pow2(sh.x))); }
		}
		barrier();
		scores(li, nw, dp);
		barrier();
		if (li < BQ) { softmaxRow(li, i0, j0, aq, sh.x); }
		for (uint r = r0; r < BKY; r += rs) {
			for (uint c = c0; c < dp; c += 32u) { kvh[r * DM + c] = vload(vval(j0 + r, nkw, hk, c), sh.y); }
		}
		barrier();
		accumulate(li, nw, dp, sh.y, i0, j0, nkw, hk);
		barrier();
	}
	barrier();
	storeO(li, nw, i0, h);
}
