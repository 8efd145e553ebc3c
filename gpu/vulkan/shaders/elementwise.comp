#version 450
// Element-wise ops over n values, one invocation per value (a port of
// ../../webgpu/elementwise.wgsl): y = f(a, b). op: 0 add, 1 mul, 2 y += float32(s·a),
// 3 guidance y = a + float32(s·float32(y − a)), 4 silu(a), 5 copy, 6 gated add
// y += b[(i0 + i) % dim]·a.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint n, op, yb, ab, bb, dim, i0; float s; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };

void main() {
	uint i = gid();
	if (i >= p.n) { return; }
	uint yi = p.yb + i;
	uint ai = p.ab + i;
	switch (p.op) {
	case 0u: y[yi] = a[ai] + b[p.bb + i]; break;
	case 1u: y[yi] = a[ai] * b[p.bb + i]; break;
	case 2u: { float t = p.s * a[ai]; y[yi] = y[yi] + t; break; }
	case 3u: { float u = a[ai]; float d = y[yi] - u; float t = p.s * d; y[yi] = u + t; break; }
	case 4u: { float v = a[ai]; y[yi] = v / (1.0 + expf(-v)); break; }
	case 5u: y[yi] = a[ai]; break;
	case 6u: { float t = b[p.bb + (p.i0 + i) % p.dim] * a[ai]; y[yi] = y[yi] + t; break; }
	default: break;
	}
}
