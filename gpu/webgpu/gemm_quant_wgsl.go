//go:build cgo

package webgpu

import (
	"fmt"

	"kleinbild/gpu"
)

// Quantized weights on the generated tiles: the B operand of a Linear tile product may be
// ggml blocks (opQuant), dequantized as its tile is fetched into registers, before the
// transposing store into workgroup memory. The kernel declares the packed words with the
// type's block loader (quant.go: wload(i), element i in float32 as ggml decodes it) and, for
// vec4 loads, wload4(i): the four elements i..i+3 (i a multiple of 4, so one block and one
// sub-block scale) decoded together, each lane with the same float32 operations as wload.
// Every K of a quantized weight is a whole number of blocks (32 or 256 values) and its
// views start at a block boundary (gpu.CheckLinear), so the vec4 form always applies when
// the variant reads vec4.

// wload4Common holds the helpers of the vec4 loaders (after wloadQuantCommon).
const wload4Common = `// qword is the 4 bytes from byte o (any alignment), little-endian.
fn qword(o: u32) -> u32 {
	let s = (o & 3u) * 8u;
	let lo = w[o >> 2u];
	if (s == 0u) { return lo; }
	return (lo >> s) | (w[(o >> 2u) + 1u] << (32u - s));
}
// qb4 splits a word into its 4 bytes, qs4 into its 4 bytes as int8.
fn qb4(u: u32) -> vec4<u32> { return (vec4<u32>(u) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu); }
fn qs4(u: u32) -> vec4<i32> { return bitcast<vec4<i32>>(vec4<u32>(u) << vec4<u32>(24u, 16u, 8u, 0u)) >> vec4<u32>(24u); }
// qbit4 is bit j, j+1, j+2, j+3 of u as the lanes' bit 4.
fn qbit4(u: u32, j: u32) -> vec4<u32> { return ((vec4<u32>(u >> j) >> vec4<u32>(0u, 1u, 2u, 3u)) & vec4<u32>(1u)) << vec4<u32>(4u); }
`

// wload4Quant holds each type's vec4 loader, the lanes computed as wloadQuant's wload.
var wload4Quant = map[gpu.DType]string{
	gpu.Q8_0: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 32u) * 34u;
	return vec4<f32>(qs4(qword(o + 2u + i % 32u))) * qf16(o);
}
`,
	gpu.Q4_K: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 256u) * 144u;
	let j = i % 256u;
	let c = j / 64u;
	let r = j % 64u;
	let sm = kscale(o + 4u, 2u * c + r / 32u);
	let q = qb4((qword(o + 16u + 32u * c + r % 32u) >> (4u * (r / 32u))) & 0x0f0f0f0fu);
	let dl = qf16(o) * f32(sm.x);
	let ml = qf16(o + 2u) * f32(sm.y);
	return dl * vec4<f32>(q) - ml;
}
`,
	gpu.Q5_K: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 256u) * 176u;
	let j = i % 256u;
	let c = j / 64u;
	let r = j % 64u;
	let is = 2u * c + r / 32u;
	let sm = kscale(o + 4u, is);
	var q = qb4((qword(o + 48u + 32u * c + r % 32u) >> (4u * (r / 32u))) & 0x0f0f0f0fu);
	q = q | (((qb4(qword(o + 16u + r % 32u)) >> vec4<u32>(is)) & vec4<u32>(1u)) << vec4<u32>(4u));
	let dl = qf16(o) * f32(sm.x);
	let ml = qf16(o + 2u) * f32(sm.y);
	return dl * vec4<f32>(q) - ml;
}
`,
	gpu.Q4_0: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 32u) * 18u;
	let j = i % 32u;
	let q = qb4((qword(o + 2u + j % 16u) >> (4u * (j / 16u))) & 0x0f0f0f0fu);
	return vec4<f32>(vec4<i32>(q) - vec4<i32>(8)) * qf16(o);
}
`,
	gpu.Q4_1: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 32u) * 20u;
	let j = i % 32u;
	let q = qb4((qword(o + 4u + j % 16u) >> (4u * (j / 16u))) & 0x0f0f0f0fu);
	return vec4<f32>(q) * qf16(o) + qf16(o + 2u);
}
`,
	gpu.Q5_0: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 32u) * 22u;
	let j = i % 32u;
	let q = qb4((qword(o + 6u + j % 16u) >> (4u * (j / 16u))) & 0x0f0f0f0fu) | qbit4(qword(o + 2u), j);
	return vec4<f32>(vec4<i32>(q) - vec4<i32>(16)) * qf16(o);
}
`,
	gpu.Q5_1: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 32u) * 24u;
	let j = i % 32u;
	let q = qb4((qword(o + 8u + j % 16u) >> (4u * (j / 16u))) & 0x0f0f0f0fu) | qbit4(qword(o + 4u), j);
	return vec4<f32>(q) * qf16(o) + qf16(o + 2u);
}
`,
	gpu.Q2_K: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 256u) * 84u;
	let j = i % 256u;
	let h = j / 128u;
	let sh = (j % 128u) / 32u;
	let q = qb4((qword(o + 16u + 32u * h + j % 32u) >> (2u * sh)) & 0x03030303u);
	let sc = qbyte(o + j / 16u);
	let dl = qf16(o + 80u) * f32(sc & 15u);
	let ml = qf16(o + 82u) * f32(sc >> 4u);
	return dl * vec4<f32>(q) - ml;
}
`,
	gpu.Q3_K: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 256u) * 110u;
	let j = i % 256u;
	let h = j / 128u;
	let sh = (j % 128u) / 32u;
	let q = vec4<i32>(qb4((qword(o + 32u + 32u * h + j % 32u) >> (2u * sh)) & 0x03030303u));
	let hm = qb4(qword(o + j % 32u)) & vec4<u32>(1u << (4u * h + sh));
	let qq = q - select(vec4<i32>(0), vec4<i32>(4), hm == vec4<u32>(0u));
	let is = j / 16u;
	var lo: u32;
	if (is < 8u) { lo = qbyte(o + 96u + is) & 15u; } else { lo = qbyte(o + 96u + is - 8u) >> 4u; }
	let hi = (qbyte(o + 104u + is % 4u) >> (2u * (is / 4u))) & 3u;
	let dl = qf16(o + 108u) * f32(i32(lo | (hi << 4u)) - 32);
	return dl * vec4<f32>(qq);
}
`,
	gpu.Q6_K: `fn wload4(i: u32) -> vec4<f32> {
	let o = (i / 256u) * 210u;
	let j = i % 256u;
	let h = j / 128u;
	let g = (j % 128u) / 32u;
	let l = j % 32u;
	let ql = (qword(o + 64u * h + l + 32u * (g & 1u)) >> (4u * (g / 2u))) & 0x0f0f0f0fu;
	let qh = (qword(o + 128u + 32u * h + l) >> (2u * g)) & 0x03030303u;
	let q = vec4<i32>(qb4(ql | (qh << 4u))) - vec4<i32>(32);
	let sc = qi8(o + 192u + 8u * h + l / 16u + 2u * g);
	return qf16(o + 208u) * f32(sc) * vec4<f32>(q);
}
`,
}

// operandDecl declares operand arr of key k: a quantized B as its block loaders (binding 3,
// the packed words w), any other operand as bindingDecl does.
func operandDecl(k gemmKey, arr string) string {
	if k.bKind != opQuant || arr != "W" {
		return bindingDecl(arr, k.bKind, k.bVec)
	}
	src := wloadQuantCommon + wloadQuant[k.bQuant]
	if k.bVec == 4 {
		src += wload4Common + wload4Quant[k.bQuant]
	}
	return src
}

// quantLoad is the expression that dequantizes vec elements (1 or 4) from element index idx.
func quantLoad(vec int, idx string) string {
	if vec == 4 {
		return fmt.Sprintf("wload4(%s)", idx)
	}
	return fmt.Sprintf("wload(%s)", idx)
}

// quantVec is the values per load of a quantized weight whose rows of k values start at
// element off: 4 where the variant reads vec4 (k and off are whole blocks), else 1.
func quantVec(cfg gemmCfg, k int, off uint32) int {
	if cfg.vec == 4 && k%4 == 0 && off%4 == 0 {
		return 4
	}
	return 1
}

// quantForms are the compiled forms of a Linear variant cfg with quantized weights, for
// gemmForms: every type of QuantTypes, x read both ways, B scalar and vec4, checked and
// interior.
func quantForms(cfg gemmCfg) []gemmKey {
	var keys []gemmKey
	for _, interior := range []bool{false, true} {
		for _, d := range QuantTypes() {
			for _, xv := range []int{1, 4} {
				for _, bv := range []int{1, 4} {
					keys = append(keys, gemmKey{cfg: cfg, aKind: opF32, aVec: xv, bKind: opQuant, bVec: bv, bQuant: d, interior: interior})
				}
			}
		}
	}
	return keys
}
