// Element-wise ops over n values: y = f(a, b), one thread per value. op (the EW_* codes,
// declared by elementwise.go): EW_ADD, EW_MUL, EW_ADD_SCALED y += float32(s·a), EW_GUIDANCE
// y = a + float32(s·float32(y − a)) (y cond, a uncond), EW_SILU y = silu(a), EW_COPY y = a,
// EW_GATED_ADD y += b[(i0 + i) % dim]·a (a = the branch output, b = the gate).
struct P { n: u32, op: u32, yb: u32, ab: u32, bb: u32, dim: u32, i0: u32, s: f32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let i = (wg.y * nwg.x + wg.x) * 256u + li;
	if (i >= p.n) { return; }
	let yi = p.yb + i;
	let ai = p.ab + i;
	switch p.op {
		case EW_ADD: { y[yi] = a[ai] + b[p.bb + i]; }
		case EW_MUL: { y[yi] = a[ai] * b[p.bb + i]; }
		case EW_ADD_SCALED: { let t = p.s * a[ai]; y[yi] = y[yi] + t; }
		case EW_GUIDANCE: { let u = a[ai]; let d = y[yi] - u; let t = p.s * d; y[yi] = u + t; }
		case EW_SILU: { let v = a[ai]; y[yi] = v / (1.0 + expf(-v)); }
		case EW_COPY: { y[yi] = a[ai]; }
		case EW_GATED_ADD: { let t = b[p.bb + (p.i0 + i) % p.dim] * a[ai]; y[yi] = y[yi] + t; }
		default: {}
	}
}
