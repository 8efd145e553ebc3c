package ggml

import "encoding/binary"

// K-quant super-blocks of 256 elements (ggml-quants.c dequantize_row_q{2..6}_K).

// DequantQ2_K: block {scales[16] (low nibble scale, high nibble min), qs[64], d f16,
// dmin f16}. Sixteen groups of 16 elements; value (d*scale)*q - dmin*min.
func DequantQ2_K(dst []float32, src []byte) {
	for b := 0; b < len(dst)/256; b++ {
		blk, y := src[84*b:84*b+84], dst[256*b:256*b+256]
		scales, qs := blk[0:16], blk[16:80]
		d, dmin := Half(le16(blk[80:])), Half(le16(blk[82:]))
		is, o := 0, 0
		for h := range 2 {
			q := qs[32*h : 32*h+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := range 2 {
					sc := scales[is]
					is++
					dl, ml := d*float32(sc&15), dmin*float32(sc>>4)
					for l := range 16 {
						y[o] = float32(dl*float32((q[16*half+l]>>shift)&3)) - ml
						o++
					}
				}
			}
		}
	}
}

// q3Scales unpacks Q3_K's twelve scale bytes into sixteen 6-bit scales (stored +32).
func q3Scales(s []byte) [16]int8 {
	const kmask1, kmask2 = 0x03030303, 0x0f0f0f0f
	a0, a1 := binary.LittleEndian.Uint32(s[0:]), binary.LittleEndian.Uint32(s[4:])
	tmp := binary.LittleEndian.Uint32(s[8:])
	aux := [4]uint32{
		(a0 & kmask2) | (((tmp >> 0) & kmask1) << 4),
		(a1 & kmask2) | (((tmp >> 2) & kmask1) << 4),
		((a0 >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4),
		((a1 >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4),
	}
	var out [16]int8
	for i := range out {
		out[i] = int8(aux[i/4] >> (8 * uint(i%4)))
	}
	return out
}

// DequantQ3_K: block {hmask[32], qs[64], scales[12], d f16}. q = two low bits from qs minus
// 4 unless the hmask bit is set; value (d*(scale-32))*q.
func DequantQ3_K(dst []float32, src []byte) {
	for b := 0; b < len(dst)/256; b++ {
		blk, y := src[110*b:110*b+110], dst[256*b:256*b+256]
		hm, qs := blk[0:32], blk[32:96]
		sc := q3Scales(blk[96:108])
		d := Half(le16(blk[108:]))
		is, o := 0, 0
		m := byte(1)
		for h := range 2 {
			q := qs[32*h : 32*h+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := range 2 {
					dl := d * float32(int(sc[is])-32)
					is++
					for l := range 16 {
						v := int((q[16*half+l] >> shift) & 3)
						if hm[16*half+l]&m == 0 {
							v -= 4
						}
						y[o] = dl * float32(v)
						o++
					}
				}
				m <<= 1
			}
		}
	}
}

// scaleMinK4 is ggml's get_scale_min_k4: the j-th 6-bit scale and min of Q4_K/Q5_K.
func scaleMinK4(j int, s []byte) (sc, mn byte) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return (s[j+4] & 15) | ((s[j-4] >> 6) << 4), (s[j+4] >> 4) | ((s[j] >> 6) << 4)
}

// DequantQ4_K: block {d f16, dmin f16, scales[12], qs[128]}. Eight groups of 32; value
// (d*scale)*q - dmin*min.
func DequantQ4_K(dst []float32, src []byte) {
	for b := 0; b < len(dst)/256; b++ {
		blk, y := src[144*b:144*b+144], dst[256*b:256*b+256]
		d, dmin := Half(le16(blk)), Half(le16(blk[2:]))
		scales, qs := blk[4:16], blk[16:144]
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1, dm1 := d*float32(sc1), dmin*float32(m1)
			d2, dm2 := d*float32(sc2), dmin*float32(m2)
			q, yc := qs[32*c:32*c+32], y[64*c:64*c+64]
			for l := range 32 {
				yc[l] = float32(d1*float32(q[l]&15)) - dm1
				yc[32+l] = float32(d2*float32(q[l]>>4)) - dm2
			}
		}
	}
}

// DequantQ5_K: block {d f16, dmin f16, scales[12], qh[32], qs[128]}: Q4_K plus a fifth bit
// from qh (bit 2c for the low nibbles of group c, bit 2c+1 for the high ones).
func DequantQ5_K(dst []float32, src []byte) {
	for b := 0; b < len(dst)/256; b++ {
		blk, y := src[176*b:176*b+176], dst[256*b:256*b+256]
		d, dmin := Half(le16(blk)), Half(le16(blk[2:]))
		scales, qh, qs := blk[4:16], blk[16:48], blk[48:176]
		u1, u2 := byte(1), byte(2)
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1, dm1 := d*float32(sc1), dmin*float32(m1)
			d2, dm2 := d*float32(sc2), dmin*float32(m2)
			q, yc := qs[32*c:32*c+32], y[64*c:64*c+64]
			for l := range 32 {
				lo, hi := int(q[l]&15), int(q[l]>>4)
				if qh[l]&u1 != 0 {
					lo += 16
				}
				if qh[l]&u2 != 0 {
					hi += 16
				}
				yc[l] = float32(d1*float32(lo)) - dm1
				yc[32+l] = float32(d2*float32(hi)) - dm2
			}
			u1 <<= 2
			u2 <<= 2
		}
	}
}

// DequantQ6_K: block {ql[128], qh[64], scales[16] int8, d f16}; q = 4 low bits from ql and
// 2 high bits from qh, minus 32; value (d*scale)*q.
func DequantQ6_K(dst []float32, src []byte) {
	for b := 0; b < len(dst)/256; b++ {
		blk, y := src[210*b:210*b+210], dst[256*b:256*b+256]
		d := Half(le16(blk[208:]))
		for h := range 2 {
			ql, qh := blk[64*h:64*h+64], blk[128+32*h:128+32*h+32]
			sc := blk[192+8*h : 192+8*h+8]
			yh := y[128*h : 128*h+128]
			for l := range 32 {
				is := l / 16
				q1 := int(ql[l]&15|((qh[l]>>0)&3)<<4) - 32
				q2 := int(ql[l+32]&15|((qh[l]>>2)&3)<<4) - 32
				q3 := int(ql[l]>>4|((qh[l]>>4)&3)<<4) - 32
				q4 := int(ql[l+32]>>4|((qh[l]>>6)&3)<<4) - 32
				yh[l] = d * float32(int8(sc[is])) * float32(q1)
				yh[l+32] = d * float32(int8(sc[is+2])) * float32(q2)
				yh[l+64] = d * float32(int8(sc[is+4])) * float32(q3)
				yh[l+96] = d * float32(int8(sc[is+6])) * float32(q4)
			}
		}
	}
}
