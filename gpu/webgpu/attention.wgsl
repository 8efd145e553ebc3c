// Attention with online softmax (flash-attention style: no score matrix). One thread per
// (query, head, slice of up to 32 output dims): it walks the visible keys once, computing each
// score q·k·scale over the whole head dim (so any head dim works, the VAE's 512 included),
// keeping the running maximum m, the running sum l of exp(s − m) and the 32 weighted value
// sums, rescaled when m grows. Masked keys (causal, beyond KeyValid) are never visited, so
// they weigh exactly 0; a query that sees no key gets 0, one with a NaN or +Inf score NaN.
//
// The loops inside the key loop are unrolled (attention.go writes out the 32 lanes, the dot
// product takes 16 values per iteration) because llvmpipe (Mesa's software Vulkan) stops any
// loop after 65535 iterations in total per invocation: nested loops over keys × head dim
// otherwise return wrong results on long sequences. With 16 per iteration it handles
// 65535·16/headDim keys (8191 at head dim 128); other drivers have no such limit.
struct P { seqQ: u32, nk: u32, heads: u32, group: u32, d: u32, qs: u32, ks: u32, vs: u32, os: u32,
	qb: u32, kb: u32, vb: u32, ob: u32, causal: u32, slices: u32, scale: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;

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
	let idx = (wg.y * nwg.x + wg.x) * 64u + li;
	if (idx >= p.seqQ * p.heads * p.slices) { return; }
	let sl = idx % p.slices;
	let t = idx / p.slices;
	let h = t % p.heads;
	let i = t / p.heads;
	let kvh = h / p.group;
	let qo = p.qb + i * p.qs + h * p.d;
	let d0 = sl * 32u;
	let dn = min(32u, p.d - d0);
	var nk = p.nk;
	if (p.causal != 0u) { nk = min(nk, i + 1u); }
	var acc: array<f32, 32>;
	for (var j = 0u; j < 32u; j++) { acc[j] = 0.0; }
	var m = -3.0e38;
	var l = 0.0;
	var bad = false;
	for (var j = 0u; j < nk; j++) {
		let ko = p.kb + j * p.ks + kvh * p.d;
		var s = 0.0;
		var e = 0u;
		for (; e + 16u <= p.d; e += 16u) {
			s += dot(vec4<f32>(q[qo + e], q[qo + e + 1u], q[qo + e + 2u], q[qo + e + 3u]), vec4<f32>(k[ko + e], k[ko + e + 1u], k[ko + e + 2u], k[ko + e + 3u]));
			s += dot(vec4<f32>(q[qo + e + 4u], q[qo + e + 5u], q[qo + e + 6u], q[qo + e + 7u]), vec4<f32>(k[ko + e + 4u], k[ko + e + 5u], k[ko + e + 6u], k[ko + e + 7u]));
			s += dot(vec4<f32>(q[qo + e + 8u], q[qo + e + 9u], q[qo + e + 10u], q[qo + e + 11u]), vec4<f32>(k[ko + e + 8u], k[ko + e + 9u], k[ko + e + 10u], k[ko + e + 11u]));
			s += dot(vec4<f32>(q[qo + e + 12u], q[qo + e + 13u], q[qo + e + 14u], q[qo + e + 15u]), vec4<f32>(k[ko + e + 12u], k[ko + e + 13u], k[ko + e + 14u], k[ko + e + 15u]));
		}
		for (; e < p.d; e++) { s += q[qo + e] * k[ko + e]; }
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
		let vo = p.vb + j * p.vs + kvh * p.d + d0;
//ACCUM//
	}
	var inv = 0.0;
	if (nk > 0u) { inv = 1.0 / l; }
	let oo = p.ob + i * p.os + h * p.d + d0;
	for (var e = 0u; e < dn; e++) { o[oo + e] = select(acc[e] * inv, qnan(), bad); }
}
