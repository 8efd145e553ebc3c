// Shared helpers, prepended to the kernels that need them.

// expf is a float32 exp accurate to about 1 ulp: the CPU backend's expf (Cephes' polynomial
// on a range reduced to |r| <= ln2/2), so that softmax and SiLU match it. It returns 0 below
// ln(smallest normal) and +inf above ln(max float32).
fn expf(x: f32) -> f32 {
	if (!(x >= -87.33654475055310)) {
		if (x != x) { return x; }
		return 0.0;
	}
	if (x > 88.72283905206835) { return bitcast<f32>(0x7f800000u); }
	let fn_ = round(x * 1.44269504088896341);
	let r = x - fn_ * 0.693359375 - fn_ * -2.12194440e-4;
	let z = r * r;
	var p = ((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r + 4.1665795894e-2) * r + 1.6666665459e-1) * r + 5.0000001201e-1;
	p = p * z + r + 1.0;
	var n = i32(fn_);
	if (n < -125 || n > 127) {
		let h = n / 2;
		p = p * bitcast<f32>(u32(h + 127) << 23u);
		n = n - h;
	}
	return p * bitcast<f32>(u32(n + 127) << 23u);
}
