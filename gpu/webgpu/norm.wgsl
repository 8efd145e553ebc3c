// Row norms: one workgroup of 256 threads per segment of d values (RMSNorm and LayerNorm rows,
// HeadRMSNorm heads, GroupNorm groups). Sums are tree reductions in workgroup memory; the
// mean and variance take two passes over the data (the second also corrects the mean by the
// mean deviation), so that float32 keeps the accuracy of the CPU's float64 sums. The NORM_*
// mode codes are declared by norm.go.
//
// NORM_RMS: y = x·inv·w, inv = 1/sqrt(float32(Σx²/d) + eps), segments s = (r, h) at
//   r·stride + h·d (heads per row).
// NORM_LAYER: y = (x − mean)·inv·(1 + scale) + shift, rows of d.
// NORM_GROUP: segments of d = cpg·hw values; y = x·sc + sh per channel,
//   y = (x − mean)·(inv·gamma) + beta (x − mean first: no cancellation in float32).
struct P { segs: u32, d: u32, heads: u32, stride: u32, xb: u32, yb: u32, wb: u32, vb: u32,
	hasW: u32, hasV: u32, mode: u32, hw: u32, c0: u32, eps: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;

var<workgroup> red: array<f32, 256>;

fn reduce(li: u32, val: f32) -> f32 {
	red[li] = val;
	workgroupBarrier();
	for (var s = 128u; s > 0u; s = s >> 1u) {
		if (li < s) { red[li] = red[li] + red[li + s]; }
		workgroupBarrier();
	}
	let r = red[0];
	workgroupBarrier();
	return r;
}

// rsqrtExact is 1/sqrt(m) refined by one Newton step on the residual, so that it is within
// about an ulp of the correctly rounded value whatever the driver's sqrt precision.
fn invSqrt(m: f32) -> f32 {
	let r = 1.0 / sqrt(m);
	let e = 1.0 - m * r * r;
	return r + r * 0.5 * e;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let s = wg.y * nwg.x + wg.x;
	if (s >= p.segs) { return; }
	let d = p.d;
	var base = s * d;
	if (p.mode == NORM_RMS) { base = (s / p.heads) * p.stride + (s % p.heads) * d; }
	let xb = p.xb + base;
	let yb = p.yb + base;
	if (p.mode == NORM_RMS) {
		var ss = 0.0;
		for (var i = li; i < d; i += 256u) { let t = x[xb + i]; ss += t * t; }
		ss = reduce(li, ss);
		let inv = invSqrt(ss / f32(d) + p.eps);
		for (var i = li; i < d; i += 256u) {
			var o = x[xb + i] * inv;
			if (p.hasW != 0u) { o = o * w[p.wb + i]; }
			y[yb + i] = o;
		}
		return;
	}
	var sum = 0.0;
	for (var i = li; i < d; i += 256u) { sum += x[xb + i]; }
	let mean0 = reduce(li, sum) / f32(d);
	var dev = 0.0;
	var sq = 0.0;
	for (var i = li; i < d; i += 256u) { let t = x[xb + i] - mean0; dev += t; sq += t * t; }
	let dm = reduce(li, dev) / f32(d);
	let vr = max(reduce(li, sq) / f32(d) - dm * dm, 0.0);
	let mean = mean0 + dm;
	let inv = invSqrt(vr + p.eps);
	if (p.mode == NORM_LAYER) {
		for (var i = li; i < d; i += 256u) {
			var o = (x[xb + i] - mean) * inv;
			if (p.hasW != 0u) { o = o * (1.0 + w[p.wb + i]); }
			if (p.hasV != 0u) { o = o + v[p.vb + i]; }
			y[yb + i] = o;
		}
		return;
	}
	let c0 = p.c0 + s * (d / p.hw);
	for (var i = li; i < d; i += 256u) {
		let c = c0 + i / p.hw;
		var sc = inv;
		if (p.hasW != 0u) { sc = sc * w[p.wb + c]; }
		var o = (x[xb + i] - mean) * sc;
		if (p.hasV != 0u) { o = o + v[p.vb + c]; }
		y[yb + i] = o;
	}
}
