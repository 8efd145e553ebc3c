// The first Linear kernel, kept as variant t64x64-r4x4 to measure the generated ones
// (gemm_wgsl.go) against.
// Linear: y[r, o] = Σ_k x[r, k]·w[o, k] + bias[o] for rows × n outputs, in float32, as tiles
// of 64 rows × 64 outputs per workgroup (16×16 threads, 4×4 outputs each), k in steps of
// 16 through workgroup memory. The weight loader wload (f32, or bf16 widened exactly: a bf16
// is the upper half of a float32) is prepended by linear.go. Outputs go to columns
// [o0, o0 + n) of y rows ys apart (one dispatch per weight chunk).
struct P { rows: u32, n: u32, k: u32, xb: u32, yb: u32, wb: u32, bb: u32, hasB: u32, ys: u32, o0: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

var<workgroup> xs: array<f32, 1024>; // [16 k][64 rows]
var<workgroup> ws: array<f32, 1024>; // [16 k][64 outputs]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let c0 = wg.x * 64u;
	let r0 = wg.y * 64u;
	var acc: array<f32, 16>;
	for (var i = 0u; i < 16u; i++) { acc[i] = 0.0; }
	for (var k0 = 0u; k0 < p.k; k0 += 16u) {
		for (var i = 0u; i < 4u; i++) {
			let e = li + 256u * i;
			let rr = e >> 4u;
			let kk = e & 15u;
			let gk = k0 + kk;
			var xv = 0.0;
			if (r0 + rr < p.rows && gk < p.k) { xv = x[p.xb + (r0 + rr) * p.k + gk]; }
			xs[kk * 64u + rr] = xv;
			var wv = 0.0;
			if (c0 + rr < p.n && gk < p.k) { wv = wload(p.wb + (c0 + rr) * p.k + gk); }
			ws[kk * 64u + rr] = wv;
		}
		workgroupBarrier();
		for (var kk = 0u; kk < 16u; kk++) {
			let a = vec4<f32>(xs[kk * 64u + lid.y * 4u], xs[kk * 64u + lid.y * 4u + 1u], xs[kk * 64u + lid.y * 4u + 2u], xs[kk * 64u + lid.y * 4u + 3u]);
			let bv = vec4<f32>(ws[kk * 64u + lid.x * 4u], ws[kk * 64u + lid.x * 4u + 1u], ws[kk * 64u + lid.x * 4u + 2u], ws[kk * 64u + lid.x * 4u + 3u]);
			for (var i = 0u; i < 4u; i++) {
				acc[i * 4u] += a[i] * bv.x;
				acc[i * 4u + 1u] += a[i] * bv.y;
				acc[i * 4u + 2u] += a[i] * bv.z;
				acc[i * 4u + 3u] += a[i] * bv.w;
			}
		}
		workgroupBarrier();
	}
	for (var i = 0u; i < 4u; i++) {
		let r = r0 + lid.y * 4u + i;
		if (r >= p.rows) { continue; }
		for (var j = 0u; j < 4u; j++) {
			let c = c0 + lid.x * 4u + j;
			if (c >= p.n) { continue; }
			var o = acc[i * 4u + j];
			let yi = p.yb + r * p.ys + p.o0 + c;
			if (p.hasB == 1u) { o = o + bias[p.bb + c]; }
			if (p.hasB == 2u) { o = y[yi] + bitcast<f32>(p.bb) * o; } // LinearAdd: bb holds the scale
			y[yi] = o;
		}
	}
}
