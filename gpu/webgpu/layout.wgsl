// Index-mapping ops, one thread per output value (RoPE: per rotated pair), n threads. The
// LY_* mode codes are declared by layout.go.
// LY_TRANSPOSE (Transpose): y[c·rows + r] = x[r·cols + c] (a = rows, b = cols).
// LY_PATCHIFY (Patchify): y[(ch·4 + dy·2 + dx), i, j] = x[ch, 2i + dy, 2j + dx] (a = h, b = w of x).
// LY_UNPATCHIFY (Unpatchify): y[ch, 2i + dy, 2j + dx] = x[ch·4 + dy·2 + dx, i, j] (a = h, b = w of x).
// LY_UPSAMPLE (UpsampleNearest2x): y[ch, i, j] = x[ch, i/2, j/2] (a = h, b = w of x).
// LY_SWIGLU (SwiGLU): y[r·ys + j] = silu(x[r·xs + j])·x[r·xs + hidden + j] (a = hidden, b = xs, c = ys).
// LY_BATCHNORM (BatchNorm): y = (x − mean[ch])/std[ch], or with e != 0 y = float32(x·std) + mean
//   (a = hw; u = mean, v = std).
// LY_ROPE (RoPE), in place on y (x unused): pair k of (s, h): a = heads, b = headDim, c = stride,
//   e = interleaved; u = cos, v = sin.
struct P { n: u32, mode: u32, yb: u32, xb: u32, ub: u32, vb: u32, a: u32, b: u32, c: u32, e: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> u: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let i = (wg.y * nwg.x + wg.x) * 256u + li;
	if (i >= p.n) { return; }
	switch p.mode {
		case LY_TRANSPOSE: {
			let c = i / p.a;
			let r = i % p.a;
			y[p.yb + i] = x[p.xb + r * p.b + c];
		}
		case LY_PATCHIFY: {
			let ho = p.a / 2u;
			let wo = p.b / 2u;
			let j = i % wo;
			let t = i / wo;
			let ii = t % ho;
			let oc = t / ho;
			let ch = oc / 4u;
			let dy = (oc / 2u) % 2u;
			let dx = oc % 2u;
			y[p.yb + i] = x[p.xb + (ch * p.a + 2u * ii + dy) * p.b + 2u * j + dx];
		}
		case LY_UNPATCHIFY: {
			let wo = 2u * p.b;
			let ho = 2u * p.a;
			let jj = i % wo;
			let t = i / wo;
			let ii = t % ho;
			let ch = t / ho;
			let ic = ch * 4u + (ii % 2u) * 2u + (jj % 2u);
			y[p.yb + i] = x[p.xb + (ic * p.a + ii / 2u) * p.b + jj / 2u];
		}
		case LY_UPSAMPLE: {
			let wo = 2u * p.b;
			let ho = 2u * p.a;
			let jj = i % wo;
			let t = i / wo;
			let ii = t % ho;
			let ch = t / ho;
			y[p.yb + i] = x[p.xb + (ch * p.a + ii / 2u) * p.b + jj / 2u];
		}
		case LY_SWIGLU: {
			let j = i % p.a;
			let r = i / p.a;
			let g = x[p.xb + r * p.b + j];
			let s = g / (1.0 + expf(-g));
			y[p.yb + r * p.c + j] = s * x[p.xb + r * p.b + p.a + j];
		}
		case LY_BATCHNORM: {
			let ch = i / p.a;
			if (p.e == 0u) {
				y[p.yb + i] = (x[p.xb + i] - u[p.ub + ch]) / v[p.vb + ch];
			} else {
				let t = x[p.xb + i] * v[p.vb + ch];
				y[p.yb + i] = t + u[p.ub + ch];
			}
		}
		case LY_ROPE: {
			let half = p.b / 2u;
			let k = i % half;
			let t = i / half;
			let h = t % p.a;
			let s = t / p.a;
			var i0 = 2u * k;
			var i1 = 2u * k + 1u;
			if (p.e == 0u) { i0 = k; i1 = k + half; }
			let xo = p.yb + s * p.c + h * p.b;
			let to = s * p.b;
			let x0 = y[xo + i0];
			let x1 = y[xo + i1];
			y[xo + i0] = x0 * u[p.ub + to + i0] - x1 * v[p.vb + to + i0];
			y[xo + i1] = x1 * u[p.ub + to + i1] + x0 * v[p.vb + to + i1];
		}
		default: {}
	}
}
