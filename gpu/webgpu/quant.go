//go:build cgo

package webgpu

import (
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"kleinbild/gpu"
)

// Quantized weights stay packed on the device: one buffer of ggml blocks as GGUF stores them,
// read by the first Linear kernel (linear.wgsl) through a loader wload(i) that decodes
// element i from its block, in float32 in the order of ggml's dequantize_row_*.

// wloadQuantCommon reads bytes and float16 scales from the packed words.
const wloadQuantCommon = `@group(0) @binding(3) var<storage, read> w: array<u32>;
fn qbyte(o: u32) -> u32 { return (w[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
fn qi8(o: u32) -> i32 { return (i32(qbyte(o)) << 24u) >> 24u; }
// qf16 converts the binary16 at byte o (even) to float32 exactly, subnormals included.
fn qf16(o: u32) -> f32 {
	let h = (w[o >> 2u] >> ((o & 2u) * 8u)) & 0xffffu;
	let sign = (h >> 15u) << 31u;
	let e = (h >> 10u) & 0x1fu;
	let m = h & 0x3ffu;
	if (e == 0x1fu) { return bitcast<f32>(sign | 0x7f800000u | (m << 13u)); }
	if (e != 0u) { return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u)); }
	let v = f32(m) * (1.0 / 16777216.0);
	if (sign != 0u) { return -v; }
	return v;
}
fn qu32(o: u32) -> u32 { return qbyte(o) | (qbyte(o + 1u) << 8u) | (qbyte(o + 2u) << 16u) | (qbyte(o + 3u) << 24u); }
// kscale is ggml's get_scale_min_k4: 6-bit scale and min number j of Q4_K/Q5_K at byte s.
fn kscale(s: u32, j: u32) -> vec2<u32> {
	if (j < 4u) { return vec2<u32>(qbyte(s + j) & 63u, qbyte(s + j + 4u) & 63u); }
	return vec2<u32>((qbyte(s + j + 4u) & 15u) | ((qbyte(s + j - 4u) >> 6u) << 4u),
		(qbyte(s + j + 4u) >> 4u) | ((qbyte(s + j) >> 6u) << 4u));
}
// nib is nibble j of the 32 elements packed in 16 bytes at o (low nibbles first).
fn nib(o: u32, j: u32) -> u32 {
	if (j < 16u) { return qbyte(o + j) & 15u; }
	return qbyte(o + j - 16u) >> 4u;
}
`

// wloadQuant holds each supported type's loader.
var wloadQuant = map[gpu.DType]string{
	// Q8_0: {d f16, qs[32] int8}; qs[j]·d.
	gpu.Q8_0: `fn wload(i: u32) -> f32 {
	let o = (i / 32u) * 34u;
	return f32(qi8(o + 2u + i % 32u)) * qf16(o);
}
`,
	// Q4_K: {d, dmin f16, scales[12], qs[128]}; groups of 32, (d·sc)·q − dmin·m.
	gpu.Q4_K: `fn wload(i: u32) -> f32 {
	let o = (i / 256u) * 144u;
	let j = i % 256u;
	let c = j / 64u;
	let r = j % 64u;
	let sm = kscale(o + 4u, 2u * c + r / 32u);
	var q = qbyte(o + 16u + 32u * c + r % 32u);
	if (r >= 32u) { q = q >> 4u; } else { q = q & 15u; }
	let dl = qf16(o) * f32(sm.x);
	let ml = qf16(o + 2u) * f32(sm.y);
	return dl * f32(q) - ml;
}
`,
	// Q5_K: Q4_K plus a fifth bit, bit 2c (low nibbles) or 2c+1 (high) of qh[l].
	gpu.Q5_K: `fn wload(i: u32) -> f32 {
	let o = (i / 256u) * 176u;
	let j = i % 256u;
	let c = j / 64u;
	let r = j % 64u;
	let is = 2u * c + r / 32u;
	let sm = kscale(o + 4u, is);
	var q = qbyte(o + 48u + 32u * c + r % 32u);
	if (r >= 32u) { q = q >> 4u; } else { q = q & 15u; }
	q = q | (((qbyte(o + 16u + r % 32u) >> is) & 1u) << 4u);
	let dl = qf16(o) * f32(sm.x);
	let ml = qf16(o + 2u) * f32(sm.y);
	return dl * f32(q) - ml;
}
`,
	// Q4_0: {d f16, qs[16]}; (q − 8)·d.
	gpu.Q4_0: `fn wload(i: u32) -> f32 {
	let o = (i / 32u) * 18u;
	return f32(i32(nib(o + 2u, i % 32u)) - 8) * qf16(o);
}
`,
	// Q4_1: {d, m f16, qs[16]}; q·d + m.
	gpu.Q4_1: `fn wload(i: u32) -> f32 {
	let o = (i / 32u) * 20u;
	return f32(nib(o + 4u, i % 32u)) * qf16(o) + qf16(o + 2u);
}
`,
	// Q5_0: {d f16, qh u32, qs[16]}; the fifth bit of element j is bit j of qh; (q − 16)·d.
	gpu.Q5_0: `fn wload(i: u32) -> f32 {
	let o = (i / 32u) * 22u;
	let j = i % 32u;
	let q = nib(o + 6u, j) | (((qu32(o + 2u) >> j) & 1u) << 4u);
	return f32(i32(q) - 16) * qf16(o);
}
`,
	// Q5_1: {d, m f16, qh u32, qs[16]}; q·d + m.
	gpu.Q5_1: `fn wload(i: u32) -> f32 {
	let o = (i / 32u) * 24u;
	let j = i % 32u;
	let q = nib(o + 8u, j) | (((qu32(o + 4u) >> j) & 1u) << 4u);
	return f32(q) * qf16(o) + qf16(o + 2u);
}
`,
	// Q2_K: {scales[16], qs[64], d, dmin f16}; element j = 128h + 32s + 16half + l has
	// q = qs[32h + 16half + l] >> 2s & 3 and scale byte j/16: (d·(sc&15))·q − dmin·(sc>>4).
	gpu.Q2_K: `fn wload(i: u32) -> f32 {
	let o = (i / 256u) * 84u;
	let j = i % 256u;
	let h = j / 128u;
	let sh = (j % 128u) / 32u;
	let q = (qbyte(o + 16u + 32u * h + j % 32u) >> (2u * sh)) & 3u;
	let sc = qbyte(o + j / 16u);
	let dl = qf16(o + 80u) * f32(sc & 15u);
	let ml = qf16(o + 82u) * f32(sc >> 4u);
	return dl * f32(q) - ml;
}
`,
	// Q3_K: {hmask[32], qs[64], scales[12], d f16}; q as Q2_K's minus 4 unless hmask bit
	// 4h + s of byte j%32 is set; scale j/16 (6 bits, stored +32): (d·(sc − 32))·q.
	gpu.Q3_K: `fn wload(i: u32) -> f32 {
	let o = (i / 256u) * 110u;
	let j = i % 256u;
	let h = j / 128u;
	let sh = (j % 128u) / 32u;
	var q = i32((qbyte(o + 32u + 32u * h + j % 32u) >> (2u * sh)) & 3u);
	if ((qbyte(o + j % 32u) & (1u << (4u * h + sh))) == 0u) { q = q - 4; }
	let is = j / 16u;
	var lo: u32;
	if (is < 8u) { lo = qbyte(o + 96u + is) & 15u; } else { lo = qbyte(o + 96u + is - 8u) >> 4u; }
	let hi = (qbyte(o + 104u + is % 4u) >> (2u * (is / 4u))) & 3u;
	let dl = qf16(o + 108u) * f32(i32(lo | (hi << 4u)) - 32);
	return dl * f32(q);
}
`,
	// Q6_K: {ql[128], qh[64], scales[16] int8, d f16}; (d·sc)·(q − 32).
	gpu.Q6_K: `fn wload(i: u32) -> f32 {
	let o = (i / 256u) * 210u;
	let j = i % 256u;
	let h = j / 128u;
	let g = (j % 128u) / 32u;
	let l = j % 32u;
	var ql = qbyte(o + 64u * h + l + 32u * (g & 1u));
	if (g >= 2u) { ql = ql >> 4u; } else { ql = ql & 15u; }
	let qh = (qbyte(o + 128u + 32u * h + l) >> (2u * g)) & 3u;
	let q = i32(ql | (qh << 4u)) - 32;
	let sc = qi8(o + 192u + 8u * h + l / 16u + 2u * g);
	return qf16(o + 208u) * f32(sc) * f32(q);
}
`,
}

// QuantTypes lists the quantized dtypes WeightQuant and Linear support on this backend: the
// packed types of internal/ggml's table (gpu.QuantTypes) that have a loader here.
func QuantTypes() []gpu.DType {
	var ds []gpu.DType
	for _, d := range gpu.QuantTypes() {
		if wloadQuant[d] != "" {
			ds = append(ds, d)
		}
	}
	return ds
}

// quantKernels are the Linear kernels by quantized weight (QuantTypes), built on first use.
var quantKernels = func() map[gpu.DType]*kernel {
	m := map[gpu.DType]*kernel{}
	for _, d := range QuantTypes() {
		m[d] = &kernel{name: "linear-" + d.String(), src: wloadQuantCommon + wloadQuant[d] + linearWGSL, nOut: 1, nIn: 3}
	}
	return m
}()

// WeightQuant copies raw, still packed, into one read-only device buffer (at most one
// binding: larger weights are an error). Linear dequantizes it inside its kernel.
func (b *Backend) WeightQuant(dtype gpu.DType, raw []byte, shape ...int) (_ gpu.Tensor, err error) {
	defer wrapDeviceError(&err)
	n, err := gpu.CheckQuant(dtype, raw, shape)
	if err != nil {
		return gpu.Tensor{}, fmt.Errorf("webgpu: %w", err)
	}
	if n > math.MaxUint32 {
		return gpu.Tensor{}, fmt.Errorf("webgpu: WeightQuant: %d values exceed the kernels' 32-bit indices", n)
	}
	if quantKernels[dtype] == nil {
		return gpu.Tensor{}, fmt.Errorf("webgpu: WeightQuant: %v weights are not supported by this backend", dtype)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.usable() {
		if b.lost != nil {
			return gpu.Tensor{}, b.lost
		}
		return gpu.Tensor{}, fmt.Errorf("webgpu: backend is closed")
	}
	if maxBind := int64(b.lim.MaxStorageBufferBindingSize); int64(len(raw)) > maxBind {
		return gpu.Tensor{}, fmt.Errorf("webgpu: WeightQuant: %v weight of %s exceeds the binding limit %s of %s", dtype, gb(int64(len(raw))), gb(maxBind), b.info.Name)
	}
	buf, sz, err := b.createBuffer(int64(len(raw)))
	if err != nil {
		return gpu.Tensor{}, err
	}
	x := &buffer{b: b, dtype: dtype, bufs: []*wgpu.Buffer{buf}, sizes: []int64{sz}, bytes: int64(len(raw)), weight: true}
	b.stage(buf, 0, raw) // a new buffer: no queued work reads it (no flush)
	return gpu.NewTensor(x, 0, dtype, shape...), nil
}

// linearQuant queues columns [o0, o1) of Linear by a quantized weight with the first Linear
// kernel and the weight's block loader.
func (b *Backend) linearQuant(y, x, w gpu.Tensor, t tail, rows, o0, o1 int) {
	out, in, _ := gpu.MatrixDims(w)
	k := quantKernels[w.DType()]
	if k == nil {
		b.fail(fmt.Errorf("webgpu: Linear: %v weights are not supported", w.DType()))
		return
	}
	maxRows := int(b.lim.MaxComputeWorkgroupsPerDimension) * 64
	for r0 := 0; r0 < rows; r0 += maxRows {
		r1 := min(rows, r0+maxRows)
		c := b.newCall("Linear")
		yb := c.out(y, r0*out, r1*out)
		xb := c.in(x, r0*in, r1*in)
		wb := c.in(w, o0*in, o1*in)
		bb, mode := t.params(c.in(t.bias, 0, out), o0)
		c.run(k, w.DType().String(), []uint32{uint32(r1 - r0), uint32(o1 - o0), uint32(in), xb + uint32(r0*in), yb + uint32(r0*out),
			wb + uint32(o0*in), bb, mode, uint32(out), uint32(o0)},
			uint32((o1-o0+63)/64), uint32((r1-r0+63)/64), 1)
	}
}
