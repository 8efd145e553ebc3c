// Shared helpers, included by the kernels (a port of ../../webgpu/common.wgsl).

// gid is the flat index of this invocation in a grid of 256-wide workgroups laid out 2-D
// (x up to 65535 workgroups, then rows of them).
uint gid() {
	return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationIndex;
}

// expf is a float32 exp accurate to about 1 ulp: the CPU backend's expf (Cephes' polynomial
// on a range reduced to |r| <= ln2/2), so that softmax and SiLU match it. It returns 0 below
// ln(smallest normal) and +inf above ln(max float32).
float expf(float x) {
	if (!(x >= -87.33654475055310)) {
		if (isnan(x)) { return x; }
		return 0.0;
	}
	if (x > 88.72283905206835) { return uintBitsToFloat(0x7f800000u); }
	float fn_ = roundEven(x * 1.44269504088896341);
	float r = x - fn_ * 0.693359375 - fn_ * -2.12194440e-4;
	float z = r * r;
	float p = ((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r + 4.1665795894e-2) * r + 1.6666665459e-1) * r + 5.0000001201e-1;
	p = p * z + r + 1.0;
	int n = int(fn_);
	if (n < -125 || n > 127) {
		int h = n / 2;
		p = p * uintBitsToFloat(uint(h + 127) << 23u);
		n = n - h;
	}
	return p * uintBitsToFloat(uint(n + 127) << 23u);
}
