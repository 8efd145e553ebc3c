// FlashAttention-2 style attention (attention_flash.go generates the constants, the
// unrolled statements marked //GEN:…// and the loads, per variant, head dim and vector mode).
//
// A workgroup owns BQ queries of one head and walks the key tiles of BK keys the block can see
// (causal: tiles wholly above the diagonal are never visited). Per key tile:
//  1. S = Q·Kᵀ, register-blocked: thread (sq, sk) of the S layout computes the RQ×RK scores of
//     queries sq·RQ + a and keys sk + b·TK, each exactly once, from Q and K in workgroup memory
//     (Q loaded once when DC = D, else Q and K stream through in head-dim chunks of DC). The
//     scale carries log2 e, so softmax works in base 2 (exp2f).
//  2. Online softmax once per tile: each thread's row maxima meet in red; every thread takes
//     the new row maximum m', writes p = 2^(s − m') to P (masked keys give exactly 0), and the
//     first thread of a row writes the rescale factor 2^(m − m') to corr.
//  3. O += P·V, register-blocked: thread (oq, od) of the O layout owns OR query rows × NV vec4
//     columns od + c·TD of the output, rescales them by corr, then adds P·V over the tile's
//     keys (V staged in workgroup memory, or read from the buffer for large head dims), and
//     sums its rows' p into l (every O thread of a row sees every p, so l needs no reduction).
//     On causal tiles that cross the diagonal the values of keys after a query are left out
//     (select), so that a NaN there cannot enter as 0·NaN; other masked keys load as zeros.
// Finally out = O / l (0 where no key is visible). A NaN or +Inf score (badScore) gets the
// weight NaN, so its row's l and O are NaN, and the row is stored as NaN.
//
// Workgroup arrays are laid out without bank conflicts: rows of Q, K and V are padded by one
// vec4 (8 threads reading 8 rows at one column hit 8 different 4-bank groups); the rows of P
// and red are padded so that the S row groups of a 32-thread warp write TK banks apart
// (attention_flash.go: pitches); threads sharing a row read the same word (a broadcast).
//
// Loads, stores and the loops over a thread's block are unrolled; the head-dim loop of S runs
// D/(4·EU) times per key tile (EU vec4 steps per iteration) and the P·V loop BK/4 times, so no
// loop runs more than about keys/2 times per invocation: llvmpipe stops a loop after 65535
// iterations in total per invocation, so the kernels handle up to about 131000 keys there.
struct P { seqQ: u32, nk: u32, heads: u32, group: u32, qs: u32, ks: u32, vs: u32, os: u32,
	qb: u32, kb: u32, vb: u32, ob: u32, causal: u32, scale2: f32, qblocks: u32, q0: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<ELEM>;
@group(0) @binding(2) var<storage, read> q: array<ELEM>;
@group(0) @binding(3) var<storage, read> k: array<ELEM>;
@group(0) @binding(4) var<storage, read> v: array<ELEM>;

var<workgroup> qsh: array<vec4<f32>, QN>;
var<workgroup> kvsh: array<vec4<f32>, KVN>;
var<workgroup> psh: array<f32, PN>;
var<workgroup> red: array<f32, RN>;
var<workgroup> corr: array<f32, BQ>;

// exp2f is 2^x to about 1 ulp (Cephes' exp2f: a degree-6 polynomial on |r| ≤ 1/2); 0 below
// 2^-126, so masked scores (−1e30) weigh exactly 0.
fn exp2f(x: f32) -> f32 {
	if (!(x >= -126.0)) {
		if (x != x) { return x; }
		return 0.0;
	}
	let n = round(min(x, 127.0));
	let r = x - n;
	let px = (((((1.535336188319500e-4 * r + 1.339887440266574e-3) * r + 9.618437357674640e-3) * r + 5.550332471162809e-2) * r + 2.402264791363012e-1) * r + 6.931472028550421e-1) * r;
	return (1.0 + px) * bitcast<f32>(u32(i32(n) + 127) << 23u);
}

// exp2b is the built-in exp2 (WGSL allows 3 + 2|x| ulp; the scores are at most 0 after the
// row maximum, where a weight 2^x carries at most (3 + 2|x|)·2^x ≤ 3 ulp of the largest),
// and 0 below 2^-126 as exp2f, so masked scores weigh exactly 0. A NaN score is handled by
// badScore.
fn exp2b(x: f32) -> f32 { return select(0.0, exp2(x), x >= -126.0); }

// badScore tells a NaN or +Inf score by its bits (a compiler may assume that comparisons and
// max never see NaN, and the online softmax would then turn it into a finite weight): such a
// score makes its query's output NaN, as exp(s − max) does in the definition. −Inf weighs 0.
fn badScore(x: f32) -> bool {
	let b = bitcast<u32>(x);
	return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}

// qnan is the NaN stored for such a query.
fn qnan() -> f32 { return bitcast<f32>(0x7fc00000u); }

// nonfinite tells NaN and ±Inf by the bits (a row sum l that a bad score made NaN).
fn nonfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u; }

//GEN:loaders//

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let blk = wg.y * nwg.x + wg.x;
	if (blk >= p.qblocks * p.heads) { return; }
	let h = blk % p.heads;
	let i0 = p.q0 + (blk / p.heads) * BQ;
	let kvh = h / p.group;
	let qbase = p.qb + h * D;
	let kbase = p.kb + kvh * D;
	let vbase = p.vb + kvh * D;
	// keys this block visits: the most any of its queries sees
	var nkw = p.nk;
	if (p.causal != 0u) { nkw = min(nkw, i0 + BQ); }
	let sq = li / TK;
	let sk = li % TK;
	let oq = li / TD;
	let od = li % TD;
//GEN:init//
	for (var j0 = 0u; j0 < nkw; j0 += BK) {
//GEN:sinit//
		for (var c0 = 0u; c0 < D; c0 += DC) {
			workgroupBarrier();
//GEN:loadk//
			workgroupBarrier();
//GEN:prefetch//
			for (var e = 0u; e < DC / 4u; e += EU) {
//GEN:qk//
			}
		}
//GEN:mask//
		workgroupBarrier();
//GEN:loadv//
//GEN:softmax//
		workgroupBarrier();
//GEN:rescale//
		if (p.causal != 0u && j0 + BK > i0 + 1u) {
			// a tile on the diagonal: the keys after a query weigh 0 and their values must
			// not enter as 0·NaN
			for (var jj = 0u; jj < BK; jj += 4u) {
//GEN:pvmask//
			}
		} else {
			for (var jj = 0u; jj < BK; jj += 4u) {
//GEN:pv//
			}
		}
	}
//GEN:store//
}
