// Attention for head dims up to 128, tiled: a workgroup of 64 threads serves QN = 64/slices
// queries of one head (slices = ceil(d/32) threads per query, each owning up to 32 output
// dims). The queries sit in workgroup memory; keys and values stream through it 8 at a time,
// shared by all threads. Every thread computes the full score q·k of its query (so the
// slices of a query agree on the running maximum and sum) and updates its 32 lanes with the
// online softmax of attention.wgsl. Masked keys (causal, beyond KeyValid) are skipped; a NaN
// or +Inf score makes the query's output NaN.
struct P { seqQ: u32, nk: u32, heads: u32, group: u32, d: u32, qs: u32, ks: u32, vs: u32, os: u32,
	qb: u32, kb: u32, vb: u32, ob: u32, causal: u32, slices: u32, scale: f32, qblocks: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;

const BK = 8u;
var<workgroup> qsh: array<f32, 2048>; // [QN][d], QN·d ≤ 64·32
var<workgroup> ksh: array<f32, 1024>; // [BK][d]
var<workgroup> vsh: array<f32, 1024>; // [BK][d]

// badScore tells a NaN or +Inf score by its bits (a compiler may assume that comparisons and
// max never see NaN, and the online softmax would then turn it into a finite weight): such a
// score makes its query's output NaN, as exp(s − max) does in the definition. −Inf weighs 0.
fn badScore(x: f32) -> bool {
	let b = bitcast<u32>(x);
	return (b & 0x7fffffffu) > 0x7f800000u || b == 0x7f800000u;
}

// qnan is the NaN stored for such a query.
fn qnan() -> f32 { return bitcast<f32>(0x7fc00000u); }

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let blk = wg.y * nwg.x + wg.x;
	if (blk >= p.qblocks * p.heads) { return; }
	let h = blk % p.heads;
	let qn = 64u / p.slices;
	let i0 = (blk / p.heads) * qn;
	let kvh = h / p.group;
	let d = p.d;
	// load the block's queries (zeros beyond seqQ)
	for (var e = li; e < qn * d; e += 64u) {
		let qi = i0 + e / d;
		var val = 0.0;
		if (qi < p.seqQ) { val = q[p.qb + qi * p.qs + h * d + e % d]; }
		qsh[e] = val;
	}
	let lq = li / p.slices;
	let sl = li % p.slices;
	let i = i0 + lq;
	let live = lq < qn && i < p.seqQ;
	let d0 = sl * 32u;
	let dn = select(1u, min(32u, d - min(d0, d)), d0 < d);
	var mine = p.nk;
	if (p.causal != 0u) { mine = min(mine, i + 1u); }
	// keys this workgroup visits: the most any of its queries sees
	var nk = p.nk;
	if (p.causal != 0u) { nk = min(nk, min(i0 + qn, p.seqQ)); }
	var acc: array<f32, 32>;
	for (var e = 0u; e < 32u; e++) { acc[e] = 0.0; }
	var m = -3.0e38;
	var l = 0.0;
	var bad = false;
	let qo = lq * d;
	for (var j0 = 0u; j0 < nk; j0 += BK) {
		workgroupBarrier();
		for (var e = li; e < BK * d; e += 64u) {
			let j = j0 + e / d;
			var kv = 0.0;
			var vv = 0.0;
			if (j < nk) {
				kv = k[p.kb + j * p.ks + kvh * d + e % d];
				vv = v[p.vb + j * p.vs + kvh * d + e % d];
			}
			ksh[e] = kv;
			vsh[e] = vv;
		}
		workgroupBarrier();
		let jn = min(BK, nk - j0);
		for (var jj = 0u; jj < jn; jj++) {
			if (!live || j0 + jj >= mine) { continue; }
			let ko = jj * d;
			var s = 0.0;
			var e = 0u;
			for (; e + 4u <= d; e += 4u) {
				s += dot(vec4<f32>(qsh[qo + e], qsh[qo + e + 1u], qsh[qo + e + 2u], qsh[qo + e + 3u]),
					vec4<f32>(ksh[ko + e], ksh[ko + e + 1u], ksh[ko + e + 2u], ksh[ko + e + 3u]));
			}
			for (; e < d; e++) { s += qsh[qo + e] * ksh[ko + e]; }
			s = s * p.scale;
			if (badScore(s)) { bad = true; continue; }
			if (s > m) {
				let corr = expf(m - s);
				l = l * corr;
//RESCALE//
				m = s;
			}
			let pe = expf(s - m);
			l += pe;
			let vo = ko + d0;
//ACCUM//
		}
	}
	if (!live || d0 >= d) { return; }
	var inv = 0.0;
	if (mine > 0u) { inv = 1.0 / l; }
	let oo = p.ob + i * p.os + h * d + d0;
	for (var e = 0u; e < dn; e++) { o[oo + e] = select(acc[e] * inv, qnan(), bad); }
}
