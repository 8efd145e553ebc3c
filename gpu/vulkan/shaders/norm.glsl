// Row norms, one workgroup of 256 invocations per segment of d values (a port of
// ../../webgpu/norm.wgsl): tree reductions in shared memory (norm.comp) or subgroup sums
// (normsg.comp, SUBGROUP: where the device has subgroup arithmetic in compute), two passes
// for mean and variance. mode 0 RMS (segments (r, h) at r·stride + h·d), 1 layer norm
// y = (x − mean)·inv·(1 + w) + v, 2 group norm (segments of d = cpg·hw; per-channel w, v).
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint segs, d, heads, stride, xb, yb, wb, vb, hasW, hasV, mode, hw, c0; float eps; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer W { float w[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };

shared float red[256];

#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
// reduce sums val over the workgroup: within each subgroup (subgroupAdd), then the subgroups'
// partial sums from shared memory, which every subgroup adds alike (each invocation a strided
// part of them, then subgroupAdd): two barriers instead of the tree's ten.
float reduce(uint li, float val) {
	float s = subgroupAdd(val);
	if (subgroupElect()) { red[gl_SubgroupID] = s; }
	barrier();
	float r = 0.0;
	for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) { r += red[i]; }
	r = subgroupAdd(r);
	barrier();
	return r;
}
#else
// reduce sums val over the workgroup: a tree in shared memory.
float reduce(uint li, float val) {
	red[li] = val;
	barrier();
	for (uint s = 128u; s > 0u; s >>= 1u) {
		if (li < s) { red[li] = red[li] + red[li + s]; }
		barrier();
	}
	float r = red[0];
	barrier();
	return r;
}
#endif

// invSqrt is 1/sqrt(m) refined by one Newton step, within about an ulp of the correctly
// rounded value whatever the driver's sqrt precision.
float invSqrt(float m) {
	float r = 1.0 / sqrt(m);
	float e = 1.0 - m * r * r;
	return r + r * 0.5 * e;
}

void main() {
	uint li = gl_LocalInvocationIndex;
	uint s = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	if (s >= p.segs) { return; }
	uint d = p.d;
	uint base = s * d;
	if (p.mode == 0u) { base = (s / p.heads) * p.stride + (s % p.heads) * d; }
	uint xb = p.xb + base;
	uint yb = p.yb + base;
	if (p.mode == 0u) {
		float ss = 0.0;
		for (uint i = li; i < d; i += 256u) { float t = x[xb + i]; ss += t * t; }
		ss = reduce(li, ss);
		float inv = invSqrt(ss / float(d) + p.eps);
		for (uint i = li; i < d; i += 256u) {
			float o = x[xb + i] * inv;
			if (p.hasW != 0u) { o = o * w[p.wb + i]; }
			y[yb + i] = o;
		}
		return;
	}
	float sum = 0.0;
	for (uint i = li; i < d; i += 256u) { sum += x[xb + i]; }
	float mean0 = reduce(li, sum) / float(d);
	float dev = 0.0, sq = 0.0;
	for (uint i = li; i < d; i += 256u) { float t = x[xb + i] - mean0; dev += t; sq += t * t; }
	float dm = reduce(li, dev) / float(d);
	float vr = max(reduce(li, sq) / float(d) - dm * dm, 0.0);
	float mean = mean0 + dm;
	float inv = invSqrt(vr + p.eps);
	if (p.mode == 1u) {
		for (uint i = li; i < d; i += 256u) {
			float o = (x[xb + i] - mean) * inv;
			if (p.hasW != 0u) { o = o * (1.0 + w[p.wb + i]); }
			if (p.hasV != 0u) { o = o + v[p.vb + i]; }
			y[yb + i] = o;
		}
		return;
	}
	uint c0 = p.c0 + s * (d / p.hw);
	for (uint i = li; i < d; i += 256u) {
		uint c = c0 + i / p.hw;
		float sc = inv;
		if (p.hasW != 0u) { sc = sc * w[p.wb + c]; }
		float o = (x[xb + i] - mean) * sc;
		if (p.hasV != 0u) { o = o + v[p.vb + c]; }
		y[yb + i] = o;
	}
}
