#version 450
// Index-mapping ops, one invocation per output value (RoPE: per rotated pair), n of them
// (a port of ../../webgpu/layout.wgsl). mode: 0 transpose (a rows, b cols), 1 patchify,
// 2 unpatchify, 3 upsample (a = h, b = w of x), 4 swiglu (a hidden, b x stride, c y stride),
// 5 batchnorm (a = hw; u mean, v std; e inverse), 6 rope in place on y (a heads, b headDim,
// c stride, e interleaved; u cos, v sin).
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint n, mode, yb, xb, ub, vb, a, b, c, e; } p;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer U { float u[]; };
layout(std430, binding = 3) readonly buffer V { float v[]; };

void main() {
	uint i = gid();
	if (i >= p.n) { return; }
	switch (p.mode) {
	case 0u: {
		uint c = i / p.a;
		uint r = i % p.a;
		y[p.yb + i] = x[p.xb + r * p.b + c];
		break;
	}
	case 1u: {
		uint ho = p.a / 2u, wo = p.b / 2u;
		uint j = i % wo, t = i / wo;
		uint ii = t % ho, oc = t / ho;
		uint ch = oc / 4u, dy = (oc / 2u) % 2u, dx = oc % 2u;
		y[p.yb + i] = x[p.xb + (ch * p.a + 2u * ii + dy) * p.b + 2u * j + dx];
		break;
	}
	case 2u: {
		uint wo = 2u * p.b, ho = 2u * p.a;
		uint jj = i % wo, t = i / wo;
		uint ii = t % ho, ch = t / ho;
		uint ic = ch * 4u + (ii % 2u) * 2u + (jj % 2u);
		y[p.yb + i] = x[p.xb + (ic * p.a + ii / 2u) * p.b + jj / 2u];
		break;
	}
	case 3u: {
		uint wo = 2u * p.b, ho = 2u * p.a;
		uint jj = i % wo, t = i / wo;
		uint ii = t % ho, ch = t / ho;
		y[p.yb + i] = x[p.xb + (ch * p.a + ii / 2u) * p.b + jj / 2u];
		break;
	}
	case 4u: {
		uint j = i % p.a, r = i / p.a;
		float g = x[p.xb + r * p.b + j];
		float s = g / (1.0 + expf(-g));
		y[p.yb + r * p.c + j] = s * x[p.xb + r * p.b + p.a + j];
		break;
	}
	case 5u: {
		uint ch = i / p.a;
		if (p.e == 0u) {
			y[p.yb + i] = (x[p.xb + i] - u[p.ub + ch]) / v[p.vb + ch];
		} else {
			float t = x[p.xb + i] * v[p.vb + ch];
			y[p.yb + i] = t + u[p.ub + ch];
		}
		break;
	}
	case 6u: {
		uint hf = p.b / 2u;
		uint k = i % hf, t = i / hf;
		uint h = t % p.a, s = t / p.a;
		uint i0 = 2u * k, i1 = 2u * k + 1u;
		if (p.e == 0u) { i0 = k; i1 = k + hf; }
		uint xo = p.yb + s * p.c + h * p.b;
		uint to = s * p.b;
		float x0 = y[xo + i0], x1 = y[xo + i1];
		y[xo + i0] = x0 * u[p.ub + to + i0] - x1 * v[p.vb + to + i0];
		y[xo + i1] = x1 * u[p.ub + to + i1] + x0 * v[p.vb + to + i1];
		break;
	}
	default: break;
	}
}
