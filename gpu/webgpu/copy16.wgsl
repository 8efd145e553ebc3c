// Copy of n bf16 values (packed two per word) from element sb to element db, for ranges that
// are not 32-bit aligned: one thread per destination word, which keeps the half outside the
// range.
struct P { n: u32, db: u32, sb: u32, w0: u32, words: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@group(0) @binding(2) var<storage, read> x: array<u32>;

fn half(e: u32) -> u32 {
	let w = x[e >> 1u];
	if ((e & 1u) == 0u) { return w & 0xffffu; }
	return w >> 16u;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let t = (wg.y * nwg.x + wg.x) * 256u + li;
	if (t >= p.words) { return; }
	let wi = p.w0 + t;
	var lo = y[wi] & 0xffffu;
	var hi = y[wi] >> 16u;
	let e0 = 2u * wi;
	if (e0 >= p.db && e0 < p.db + p.n) { lo = half(e0 - p.db + p.sb); }
	if (e0 + 1u >= p.db && e0 + 1u < p.db + p.n) { hi = half(e0 + 1u - p.db + p.sb); }
	y[wi] = lo | (hi << 16u);
}
