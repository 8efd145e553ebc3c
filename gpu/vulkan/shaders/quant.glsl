// Decoders of ggml's quantized blocks, a port of the loaders of ../../webgpu/quant.go: element
// i of a weight whose blocks start at byte 0 of W, in float32 in the order of ggml's
// dequantize_row_* (precise: no fused multiply-adds, so the values match package quant's
// bit for bit).

uint qbyte(uint o) { return (W[o >> 2u] >> ((o & 3u) * 8u)) & 0xffu; }
int qi8(uint o) { return (int(qbyte(o)) << 24) >> 24; }

// qf16 converts the binary16 at byte o (even) to float32 exactly, subnormals included.
float qf16(uint o) {
	uint h = (W[o >> 2u] >> ((o & 2u) * 8u)) & 0xffffu;
	uint sign = (h >> 15u) << 31u;
	uint e = (h >> 10u) & 0x1fu;
	uint m = h & 0x3ffu;
	if (e == 0x1fu) { return uintBitsToFloat(sign | 0x7f800000u | (m << 13u)); }
	if (e != 0u) { return uintBitsToFloat(sign | ((e + 112u) << 23u) | (m << 13u)); }
	float v = float(m) * (1.0 / 16777216.0);
	return sign != 0u ? -v : v;
}

uint qu32(uint o) { return qbyte(o) | (qbyte(o + 1u) << 8u) | (qbyte(o + 2u) << 16u) | (qbyte(o + 3u) << 24u); }

// kscale is ggml's get_scale_min_k4: 6-bit scale and min number j of Q4_K/Q5_K at byte s.
uvec2 kscale(uint s, uint j) {
	if (j < 4u) { return uvec2(qbyte(s + j) & 63u, qbyte(s + j + 4u) & 63u); }
	return uvec2((qbyte(s + j + 4u) & 15u) | ((qbyte(s + j - 4u) >> 6u) << 4u),
		(qbyte(s + j + 4u) >> 4u) | ((qbyte(s + j) >> 6u) << 4u));
}

// nib is nibble j of the 32 elements packed in 16 bytes at o (low nibbles first).
uint nib(uint o, uint j) {
	if (j < 16u) { return qbyte(o + j) & 15u; }
	return qbyte(o + j - 16u) >> 4u;
}

// wquant decodes element i of kind 2 + (dtype − Q4_0): Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K,
// Q3_K, Q4_K, Q5_K, Q6_K.
float wquant(uint i, uint kind) {
	precise float r;
	switch (kind) {
	case 2u: { // Q4_0: {d f16, qs[16]}; (q − 8)·d
		uint o = (i / 32u) * 18u;
		r = float(int(nib(o + 2u, i % 32u)) - 8) * qf16(o);
		break;
	}
	case 3u: { // Q4_1: {d, m f16, qs[16]}; q·d + m
		uint o = (i / 32u) * 20u;
		r = float(nib(o + 4u, i % 32u)) * qf16(o) + qf16(o + 2u);
		break;
	}
	case 4u: { // Q5_0: {d f16, qh u32, qs[16]}; fifth bit j of qh; (q − 16)·d
		uint o = (i / 32u) * 22u;
		uint j = i % 32u;
		uint q = nib(o + 6u, j) | (((qu32(o + 2u) >> j) & 1u) << 4u);
		r = float(int(q) - 16) * qf16(o);
		break;
	}
	case 5u: { // Q5_1: {d, m f16, qh u32, qs[16]}; q·d + m
		uint o = (i / 32u) * 24u;
		uint j = i % 32u;
		uint q = nib(o + 8u, j) | (((qu32(o + 4u) >> j) & 1u) << 4u);
		r = float(q) * qf16(o) + qf16(o + 2u);
		break;
	}
	case 6u: { // Q8_0: {d f16, qs[32] int8}; qs[j]·d
		uint o = (i / 32u) * 34u;
		r = float(qi8(o + 2u + i % 32u)) * qf16(o);
		break;
	}
	case 7u: { // Q2_K: {scales[16], qs[64], d, dmin f16}
		uint o = (i / 256u) * 84u;
		uint j = i % 256u;
		uint h = j / 128u;
		uint sh = (j % 128u) / 32u;
		uint q = (qbyte(o + 16u + 32u * h + j % 32u) >> (2u * sh)) & 3u;
		uint sc = qbyte(o + j / 16u);
		precise float dl = qf16(o + 80u) * float(sc & 15u);
		precise float ml = qf16(o + 82u) * float(sc >> 4u);
		r = dl * float(q) - ml;
		break;
	}
	case 8u: { // Q3_K: {hmask[32], qs[64], scales[12], d f16}
		uint o = (i / 256u) * 110u;
		uint j = i % 256u;
		uint h = j / 128u;
		uint sh = (j % 128u) / 32u;
		int q = int((qbyte(o + 32u + 32u * h + j % 32u) >> (2u * sh)) & 3u);
		if ((qbyte(o + j % 32u) & (1u << (4u * h + sh))) == 0u) { q = q - 4; }
		uint is = j / 16u;
		uint lo = is < 8u ? (qbyte(o + 96u + is) & 15u) : (qbyte(o + 96u + is - 8u) >> 4u);
		uint hi = (qbyte(o + 104u + is % 4u) >> (2u * (is / 4u))) & 3u;
		precise float dl = qf16(o + 108u) * float(int(lo | (hi << 4u)) - 32);
		r = dl * float(q);
		break;
	}
	case 9u: { // Q4_K: {d, dmin f16, scales[12], qs[128]}; (d·sc)·q − dmin·m
		uint o = (i / 256u) * 144u;
		uint j = i % 256u;
		uint c = j / 64u;
		uint rr = j % 64u;
		uvec2 sm = kscale(o + 4u, 2u * c + rr / 32u);
		uint q = qbyte(o + 16u + 32u * c + rr % 32u);
		q = rr >= 32u ? q >> 4u : q & 15u;
		precise float dl = qf16(o) * float(sm.x);
		precise float ml = qf16(o + 2u) * float(sm.y);
		r = dl * float(q) - ml;
		break;
	}
	case 10u: { // Q5_K: Q4_K plus a fifth bit, bit 2c (low nibbles) or 2c+1 (high) of qh[l]
		uint o = (i / 256u) * 176u;
		uint j = i % 256u;
		uint c = j / 64u;
		uint rr = j % 64u;
		uint is = 2u * c + rr / 32u;
		uvec2 sm = kscale(o + 4u, is);
		uint q = qbyte(o + 48u + 32u * c + rr % 32u);
		q = rr >= 32u ? q >> 4u : q & 15u;
		q = q | (((qbyte(o + 16u + rr % 32u) >> is) & 1u) << 4u);
		precise float dl = qf16(o) * float(sm.x);
		precise float ml = qf16(o + 2u) * float(sm.y);
		r = dl * float(q) - ml;
		break;
	}
	case 11u: { // Q6_K: {ql[128], qh[64], scales[16] int8, d f16}; (d·sc)·(q − 32)
		uint o = (i / 256u) * 210u;
		uint j = i % 256u;
		uint h = j / 128u;
		uint g = (j % 128u) / 32u;
		uint l = j % 32u;
		uint ql = qbyte(o + 64u * h + l + 32u * (g & 1u));
		ql = g >= 2u ? ql >> 4u : ql & 15u;
		uint qh = (qbyte(o + 128u + 32u * h + l) >> (2u * g)) & 3u;
		int q = int(ql | (qh << 4u)) - 32;
		int sc = qi8(o + 192u + 8u * h + l / 16u + 2u * g);
		precise float ds = qf16(o + 208u) * float(sc);
		r = ds * float(q);
		break;
	}
	default:
		r = 0.0;
	}
	return r;
}
