// The first Conv2D kernel, kept as variant t64x64-r4x4 to measure the generated ones
// (gemm_wgsl.go) against.
// Conv2D as an implicit GEMM: out[oc, pix] = Σ_k w[oc, k]·col[k, pix] + bias[oc], k = (ic, kh,
// kw), the im2col value col[k, pix] gathered from the input on the fly (zero in the padding).
// Tiles of 64 output channels × 64 pixels per workgroup (16×16 threads, 4×4 each), k in steps
// of 16 through workgroup memory. wload (f32 or bf16) is prepended by conv.go.
struct P { oc: u32, npix: u32, k: u32, ib: u32, ob: u32, wb: u32, bb: u32, hasB: u32,
	inH: u32, inW: u32, kh: u32, kw: u32, stride: u32, padT: u32, padL: u32, outW: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

var<workgroup> ws: array<f32, 1024>; // [16 k][64 channels]
var<workgroup> cs: array<f32, 1024>; // [16 k][64 pixels]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let p0 = wg.x * 64u;
	let c0 = wg.y * 64u;
	let kk2 = p.kh * p.kw;
	var acc: array<f32, 16>;
	for (var i = 0u; i < 16u; i++) { acc[i] = 0.0; }
	for (var k0 = 0u; k0 < p.k; k0 += 16u) {
		for (var i = 0u; i < 4u; i++) {
			let e = li + 256u * i;
			let rr = e >> 4u;
			let kk = e & 15u;
			let gk = k0 + kk;
			var wv = 0.0;
			if (c0 + rr < p.oc && gk < p.k) { wv = wload(p.wb + (c0 + rr) * p.k + gk); }
			ws[kk * 64u + rr] = wv;
			var cv = 0.0;
			let pix = p0 + rr;
			if (pix < p.npix && gk < p.k) {
				let ic = gk / kk2;
				let rem = gk % kk2;
				let iy = i32((pix / p.outW) * p.stride + rem / p.kw) - i32(p.padT);
				let ix = i32((pix % p.outW) * p.stride + rem % p.kw) - i32(p.padL);
				if (iy >= 0 && ix >= 0 && u32(iy) < p.inH && u32(ix) < p.inW) {
					cv = x[p.ib + (ic * p.inH + u32(iy)) * p.inW + u32(ix)];
				}
			}
			cs[kk * 64u + rr] = cv;
		}
		workgroupBarrier();
		for (var kk = 0u; kk < 16u; kk++) {
			let a = vec4<f32>(ws[kk * 64u + lid.y * 4u], ws[kk * 64u + lid.y * 4u + 1u], ws[kk * 64u + lid.y * 4u + 2u], ws[kk * 64u + lid.y * 4u + 3u]);
			let bv = vec4<f32>(cs[kk * 64u + lid.x * 4u], cs[kk * 64u + lid.x * 4u + 1u], cs[kk * 64u + lid.x * 4u + 2u], cs[kk * 64u + lid.x * 4u + 3u]);
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
		let oc = c0 + lid.y * 4u + i;
		if (oc >= p.oc) { continue; }
		for (var j = 0u; j < 4u; j++) {
			let pix = p0 + lid.x * 4u + j;
			if (pix >= p.npix) { continue; }
			var o = acc[i * 4u + j];
			if (p.hasB != 0u) { o = o + bias[p.bb + oc]; }
			y[p.ob + oc * p.npix + pix] = o;
		}
	}
}
