// FlashAttention-2 style attention, a port of ../../webgpu/attention_flash.wgsl for SPIR-V
// compiled ahead of time: the including kernel defines the tiling (BQ queries × BK keys per
// tile, RQ×RK scores and OR output rows × NV vec4 columns per invocation, head-dim chunk DC
// of Q and K, EU vec4 steps per iteration of the score loop, STAGEV: V staged in shared
// memory), and the head dim is a run-time parameter up to DMAX = 4·TD·NV.
//
// A workgroup owns BQ queries of one head and walks the key tiles its queries can see (causal:
// tiles wholly above the diagonal are never visited). Per key tile:
//  1. S = Q·Kᵀ: invocation (sq, sk) computes the scores of queries sq·RQ + a and keys
//     sk + b·TK once, from Q and K chunks of DC dims in shared memory (zeros beyond the head
//     dim, so the loop may run over whole EU steps). The scale carries log2 e, so the softmax
//     works in base 2.
//  2. Online softmax once per tile: row maxima meet in red; every invocation takes the new row
//     maximum, writes p = 2^(s − m) to P (masked keys give exactly 0), and the first of a row
//     writes the rescale factor 2^(m_old − m) to corr. Tiles whose keys are all visible to
//     all the block's queries (every tile but the last and, causal, those on the diagonal)
//     skip the mask.
//  3. O += P·V: invocation (oq, od) owns OR query rows × NV vec4 columns od + c·TD, rescales
//     them, and adds P·V over the tile's keys; l sums the row's p (every invocation of a row
//     sees every p). Keys beyond the visible count load as zero values; on tiles crossing the
//     causal diagonal the values of keys after a query are left out (select), so that a NaN
//     or Inf in a masked key's V cannot enter as 0·NaN.
// Finally out = O / l (0 where no key is visible). A NaN or +Inf score (badScore) gets the
// weight NaN, so its row's l and O are NaN, and the row is stored as NaN.
//
// The loops over an invocation's block are unrolled ([[unroll]] on loops with constant bounds
// and no early exit, which spirv-opt unrolls: constant indices keep s, acc, m and l in
// registers, not in private arrays); the score loop runs DC/(4·EU) times per chunk and the P·V loop BK/4 times per
// tile, so no loop runs more than about keys/2 times per invocation (llvmpipe stops a loop
// after 65535 iterations in total per invocation).
#extension GL_EXT_control_flow_attributes : require

#define TK (BK / RK)
#define WG ((BQ / RQ) * TK)
#define TD (WG / (BQ / OR))
#define DMAX (4 * TD * NV)
#define DC4 (DC / 4)
#define QROW (DC4 + 1)
#define KROW (DC4 + 1)
#define VROW (DMAX / 4 + 1)
#define PAD (TK / RQ > 1 ? TK / RQ : 1)
#define PP (BK + PAD)
#define RP (TK + PAD)
#if STAGEV && BK * VROW > BK * KROW
#define KVN (BK * VROW)
#else
#define KVN (BK * KROW)
#endif

layout(local_size_x = WG) in;
layout(push_constant) uniform P { uint seqQ, nk, heads, group, d, qs, ks, vs, os, qb, kb, vb, ob, causal, qblocks; float scale2; } p;
layout(std430, binding = 0) buffer O { float o[]; };
layout(std430, binding = 1) readonly buffer Q { float q[]; };
layout(std430, binding = 2) readonly buffer K { float k[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };

shared vec4 qsh[BQ * QROW];
shared vec4 kvsh[KVN];
shared float psh[BQ * PP];
shared float red[BQ * RP];
shared float corr[BQ];

// exp2f is 2^x to about 1 ulp (Cephes' exp2f: a degree-6 polynomial on |r| ≤ 1/2); 0 below
// 2^-126, so masked scores (−1e30) weigh exactly 0.
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

// badScore tells a NaN or +Inf score by its bits (a compiler may assume that comparisons and
// max never see NaN): such a score makes its query's output NaN. −Inf weighs 0.
bool badScore(float x) {
	uint b = floatBitsToUint(x);
	return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}

float qnan() { return uintBitsToFloat(0x7fc00000u); }

// nonfinite tells NaN and ±Inf by the bits (a row sum l that a bad score made NaN).
bool nonfinite(float x) { return (floatBitsToUint(x) & 0x7fffffffu) >= 0x7f800000u; }

// ldq, ldk and ldv load 4 values of a head from element e of the row at base (zeros from the
// head dim d on).
#define LOADER(NAME, BUF) vec4 NAME(uint base, uint e) { \
	if (e + 4u <= p.d) { return vec4(BUF[base + e], BUF[base + e + 1u], BUF[base + e + 2u], BUF[base + e + 3u]); } \
	vec4 r = vec4(0.0); \
	if (e < p.d) { r.x = BUF[base + e]; } \
	if (e + 1u < p.d) { r.y = BUF[base + e + 1u]; } \
	if (e + 2u < p.d) { r.z = BUF[base + e + 2u]; } \
	return r; \
}
LOADER(ldq, q)
LOADER(ldk, k)
LOADER(ldv, v)

// st stores the first n ≤ 4 values of x at element i of o.
void st(uint i, vec4 x, uint n) {
	o[i] = x.x;
	if (n > 1u) { o[i + 1u] = x.y; }
	if (n > 2u) { o[i + 2u] = x.z; }
	if (n > 3u) { o[i + 3u] = x.w; }
}

#if STAGEV
#define LOADV(c, col) vv[c] = kvsh[kk * VROW + col];
#else
#define LOADV(c, col) vv[c] = vec4(0.0); if (j0 + kk < nkw) { vv[c] = ldv(vbase + (j0 + kk) * p.vs, col * 4u); }
#endif

// PV adds P·V over keys jj to jj + 3 of the tile; DIAG (a tile crossing the causal diagonal)
// leaves out the values of keys after each row's query.
#define PV(DIAG) \
	[[unroll]] for (uint u = 0u; u < 4u; u++) { \
		uint kk = jj + u; \
		vec4 vv[NV]; \
		[[unroll]] for (uint c = 0u; c < NV; c++) { \
			uint col = min(od + c * TD, d4 - 1u); /* columns beyond the head are never stored */ \
			LOADV(c, col) \
		} \
		[[unroll]] for (uint r = 0u; r < OR; r++) { \
			float pr = psh[(oq * OR + r) * PP + kk]; \
			l[r] += pr; \
			bool vis = !DIAG || j0 + kk <= i0 + oq * OR + r; \
			[[unroll]] for (uint c = 0u; c < NV; c++) { acc[r * NV + c] += vis ? pr * vv[c] : vec4(0.0); } \
		} \
	}

void main() {
	uint blk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	if (blk >= p.qblocks * p.heads) { return; }
	uint li = gl_LocalInvocationIndex;
	uint h = blk % p.heads;
	uint i0 = (blk / p.heads) * BQ;
	uint kvh = h / p.group;
	uint qbase = p.qb + h * p.d;
	uint kbase = p.kb + kvh * p.d;
	uint vbase = p.vb + kvh * p.d;
	uint d4 = (p.d + 3u) / 4u;
	// keys this block visits: the most any of its queries sees
	uint nkw = p.nk;
	if (p.causal != 0u) { nkw = min(nkw, i0 + BQ); }
	bool qOnce = p.d <= DC; // one chunk: Q stays in shared memory
	uint sq = li / TK;
	uint sk = li % TK;
	uint oq = li / TD;
	uint od = li % TD;
	float m[RQ];
	float s[RQ * RK];
	float l[OR];
	vec4 acc[OR * NV];
	[[unroll]] for (int a = 0; a < RQ; a++) { m[a] = -3.0e38; }
	[[unroll]] for (int r = 0; r < OR; r++) {
		l[r] = 0.0;
		[[unroll]] for (int c = 0; c < NV; c++) { acc[r * NV + c] = vec4(0.0); }
	}
	if (qOnce) {
		[[unroll]] for (uint n = 0u; n < (BQ * DC4 + WG - 1) / WG; n++) {
			uint x = li + n * WG;
			if (x < BQ * DC4) {
				uint r = x / DC4, c = x % DC4;
				vec4 val = vec4(0.0);
				if (i0 + r < p.seqQ) { val = ldq(qbase + (i0 + r) * p.qs, c * 4u); }
				qsh[r * QROW + c] = val;
			}
		}
	}
	for (uint j0 = 0u; j0 < nkw; j0 += BK) {
		[[unroll]] for (int x = 0; x < RQ * RK; x++) { s[x] = 0.0; }
		for (uint c0 = 0u; c0 < p.d; c0 += DC) {
			barrier();
			[[unroll]] for (uint n = 0u; n < (BK * DC4 + WG - 1) / WG; n++) {
				uint x = li + n * WG;
				if (x < BK * DC4) {
					uint r = x / DC4, c = x % DC4;
					vec4 val = vec4(0.0);
					if (j0 + r < nkw) { val = ldk(kbase + (j0 + r) * p.ks, c0 + c * 4u); }
					kvsh[r * KROW + c] = val;
				}
			}
			if (!qOnce) {
				[[unroll]] for (uint n = 0u; n < (BQ * DC4 + WG - 1) / WG; n++) {
					uint x = li + n * WG;
					if (x < BQ * DC4) {
						uint r = x / DC4, c = x % DC4;
						vec4 val = vec4(0.0);
						if (i0 + r < p.seqQ) { val = ldq(qbase + (i0 + r) * p.qs, c0 + c * 4u); }
						qsh[r * QROW + c] = val;
					}
				}
			}
			barrier();
			uint steps = (min(DC, p.d - c0) + 4u * EU - 1u) / (4u * EU); // zeros beyond d
			[[unroll]] for (uint st4 = 0u; st4 < DC4 / EU; st4++) {
				if (st4 < steps) { // else zeros: the head dim ended in an earlier step
					uint e = st4 * EU;
					[[unroll]] for (uint u = 0u; u < EU; u++) {
						vec4 kk[RK];
						vec4 qq[RQ];
						[[unroll]] for (uint b = 0u; b < RK; b++) { kk[b] = kvsh[(sk + b * TK) * KROW + e + u]; }
						[[unroll]] for (uint a = 0u; a < RQ; a++) { qq[a] = qsh[(sq * RQ + a) * QROW + e + u]; }
						[[unroll]] for (uint a = 0u; a < RQ; a++) {
							[[unroll]] for (uint b = 0u; b < RK; b++) { s[a * RK + b] += dot(qq[a], kk[b]); }
						}
					}
				}
			}
		}
		// every key of the tile visible to every query of the block: no mask
		bool whole = j0 + BK <= nkw && (p.causal == 0u || j0 + BK <= i0 + 1u);
		[[unroll]] for (uint a = 0u; a < RQ; a++) {
			uint row = i0 + sq * RQ + a;
			float mx = -1.0e30;
			[[unroll]] for (uint b = 0u; b < RK; b++) {
				uint key = j0 + sk + b * TK;
				float sc = s[a * RK + b] * p.scale2;
				if (!whole && !(key < nkw && (p.causal == 0u || key <= row))) { sc = -1.0e30; }
				s[a * RK + b] = sc;
				mx = max(mx, sc);
			}
			red[(sq * RQ + a) * RP + sk] = mx;
		}
		barrier();
#if STAGEV
		[[unroll]] for (uint n = 0u; n < (BK * (DMAX / 4) + WG - 1) / WG; n++) {
			uint x = li + n * WG;
			if (x < BK * (DMAX / 4)) {
				uint r = x / (DMAX / 4), c = x % (DMAX / 4);
				vec4 val = vec4(0.0);
				if (j0 + r < nkw && c < d4) { val = ldv(vbase + (j0 + r) * p.vs, c * 4u); }
				kvsh[r * VROW + c] = val;
			}
		}
#endif
		[[unroll]] for (uint a = 0u; a < RQ; a++) {
			uint rr = sq * RQ + a;
			float mn = m[a];
			[[unroll]] for (uint t = 0u; t < TK; t++) { mn = max(mn, red[rr * RP + t]); }
			if (sk == 0u) { corr[rr] = exp2f(m[a] - mn); }
			m[a] = mn;
			[[unroll]] for (uint b = 0u; b < RK; b++) {
				float sc = s[a * RK + b];
				psh[rr * PP + sk + b * TK] = badScore(sc) ? qnan() : exp2f(sc - mn);
			}
		}
		barrier();
		[[unroll]] for (uint r = 0u; r < OR; r++) {
			float cr = corr[oq * OR + r];
			l[r] *= cr;
			[[unroll]] for (uint c = 0u; c < NV; c++) { acc[r * NV + c] *= cr; }
		}
		// a tile crossing the causal diagonal: the keys after a query weigh 0 and their values
		// must not enter as 0·NaN
		if (p.causal != 0u && j0 + BK > i0 + 1u) {
			for (uint jj = 0u; jj < BK; jj += 4u) { PV(true) }
		} else {
			for (uint jj = 0u; jj < BK; jj += 4u) { PV(false) }
		}
	}
	[[unroll]] for (uint r = 0u; r < OR; r++) {
		uint row = i0 + oq * OR + r;
		float inv = l[r] > 0.0 ? 1.0 / l[r] : 0.0;
		bool bad = nonfinite(l[r]);
		[[unroll]] for (uint c = 0u; c < NV; c++) {
			uint col = od + c * TD;
			vec4 val = bad ? vec4(qnan()) : acc[r * NV + c] * inv;
			if (row < p.seqQ && col < d4) { st(p.ob + row * p.os + h * p.d + col * 4u, val, min(4u, p.d - col * 4u)); }
		}
	}
}
