package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// K-quant quantizers: ports of ggml-quants.c quantize_row_q4_K_ref and quantize_row_q6_K_ref
// (the reference quantizers llama-quantize uses without an importance matrix), in float32 in
// the order ggml computes.

// qk is the K-quant super-block length.
const qk = 256

// groupMaxEps is ggml's GROUP_MAX_EPS: a group whose largest magnitude is below it is zero.
const groupMaxEps = 1e-15

// nearestInt is ggml's nearest_int: float32 to the nearest integer, ties to even, by adding
// 1.5*2^23 (exact for |f| < 2^22; larger values, which ggml asserts against, round too).
func nearestInt(f float32) int {
	if !(f > -4194303 && f < 4194303) {
		return int(max(-1<<30, min(1<<30, math.RoundToEven(float64(f)))))
	}
	return int(math.Float32bits(f+12582912)&0x007fffff) - 0x00400000
}

// QuantizeQ4_K packs src (a whole number of 256-element super-blocks) as Q4_K blocks of
// 144 bytes, as ggml's quantize_row_q4_K_ref does: per group of 32 a weighted scale and min
// search (make_qkx2_quants), the eight scales and mins coded in 6 bits against the block's
// f16 d and dmin, then 4-bit q = round((x+min)/scale) clamped to [0, 15].
func QuantizeQ4_K(src []float32) ([]byte, error) {
	if len(src)%qk != 0 {
		return nil, fmt.Errorf("quantize Q4_K: %d values is not a whole number of 256-element blocks", len(src))
	}
	out := make([]byte, len(src)/qk*144)
	for b := 0; b < len(src)/qk; b++ {
		quantizeBlockQ4_K(out[144*b:144*b+144], src[qk*b:qk*b+qk], 20)
	}
	return out, nil
}

// QuantizeQ4_KFast is QuantizeQ4_K without the scale search (make_qkx2_quants with nstep 0:
// each group's min-max grid): the same block layout, about 15 times faster, with a somewhat
// larger error. For random benchmark weights, whose values do not matter.
func QuantizeQ4_KFast(src []float32) ([]byte, error) {
	if len(src)%qk != 0 {
		return nil, fmt.Errorf("quantize Q4_K: %d values is not a whole number of 256-element blocks", len(src))
	}
	out := make([]byte, len(src)/qk*144)
	for b := 0; b < len(src)/qk; b++ {
		quantizeBlockQ4_K(out[144*b:144*b+144], src[qk*b:qk*b+qk], 0)
	}
	return out, nil
}

func quantizeBlockQ4_K(y []byte, x []float32, nstep int) {
	var (
		l              [qk]uint8
		laux           [32]uint8
		w              [32]float32
		mins, scales   [8]float32
		maxScale, maxM float32
	)
	for j := range 8 {
		xj := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xj {
			sumX2 += v * v
		}
		avX := float32(math.Sqrt(float64(sumX2 / 32)))
		for i, v := range xj {
			w[i] = avX + float32(math.Abs(float64(v)))
		}
		scales[j], mins[j] = makeQKX2Quants(15, xj, w[:], l[32*j:32*j+32], laux[:], -1, 0.1, nstep)
		maxScale = max(maxScale, scales[j])
		maxM = max(maxM, mins[j])
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxM > 0 {
		invMin = 63 / maxM
	}
	sc := y[4:16]
	clear(sc)
	for j := range 8 {
		ls := uint8(min(63, nearestInt(invScale*scales[j])))
		lm := uint8(min(63, nearestInt(invMin*mins[j])))
		if j < 4 {
			sc[j] = ls
			sc[j+4] = lm
		} else {
			sc[j+4] = ls&0xF | (lm&0xF)<<4
			sc[j-4] |= (ls >> 4) << 6
			sc[j] |= (lm >> 4) << 6
		}
	}
	dh, dminh := toF16(maxScale/63), toF16(maxM/63)
	binary.LittleEndian.PutUint16(y[0:], dh)
	binary.LittleEndian.PutUint16(y[2:], dminh)
	d0, dmin0 := f16(dh), f16(dminh)
	for j := range 8 {
		s, m := scaleMinK4(j, sc)
		d := d0 * float32(s)
		if d == 0 {
			continue
		}
		dm := dmin0 * float32(m)
		for i := range 32 {
			l[32*j+i] = uint8(max(0, min(15, nearestInt((x[32*j+i]+dm)/d))))
		}
	}
	q := y[16:144]
	for j := 0; j < qk; j += 64 {
		for i := range 32 {
			q[i] = l[j+i] | l[j+i+32]<<4
		}
		q = q[32:]
	}
}

// scaleMinK4 is ggml's get_scale_min_k4: the j-th 6-bit scale and min of a Q4_K block.
func scaleMinK4(j int, s []byte) (sc, mn byte) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return (s[j+4] & 15) | ((s[j-4] >> 6) << 4), (s[j+4] >> 4) | ((s[j] >> 6) << 4)
}

// makeQKX2Quants is ggml's make_qkx2_quants (use_mad false): levels L in [0, nmax] and a
// scale and min (returned as the positive offset to subtract) minimising the weighted squared
// error x ≈ scale*L - min, trying nstep+1 stretched grids around the min-max one.
func makeQKX2Quants(nmax int, x, weights []float32, L, laux []uint8, rmin, rdelta float32, nstep int) (scale, theMin float32) {
	n := len(x)
	lo, hi := x[0], x[0]
	sumW := weights[0]
	sumX := sumW * x[0]
	for i := 1; i < n; i++ {
		lo, hi = min(lo, x[i]), max(hi, x[i])
		sumW += weights[i]
		sumX += weights[i] * x[i]
	}
	lo = min(lo, 0)
	if hi == lo {
		clear(L[:n])
		return 0, -lo
	}
	fmax := float32(nmax)
	iscale := fmax / (hi - lo)
	scale = 1 / iscale
	var bestErr float32
	for i := range n {
		L[i] = uint8(max(0, min(nmax, nearestInt(iscale*(x[i]-lo)))))
		diff := scale*float32(L[i]) + lo - x[i]
		bestErr += weights[i] * (diff * diff)
	}
	if nstep < 1 {
		return scale, -lo
	}
	for is := 0; is <= nstep; is++ {
		iscale = (rmin + rdelta*float32(is) + fmax) / (hi - lo)
		var sumL, sumL2, sumXL float32
		for i := range n {
			li := max(0, min(nmax, nearestInt(iscale*(x[i]-lo))))
			laux[i] = uint8(li)
			w, fl := weights[i], float32(li)
			sumL += w * fl
			sumL2 += w * fl * fl
			sumXL += w * fl * x[i]
		}
		D := sumW*sumL2 - sumL*sumL
		if D <= 0 {
			continue
		}
		thisScale := (sumW*sumXL - sumX*sumL) / D
		thisMin := (sumL2*sumX - sumL*sumXL) / D
		if thisMin > 0 {
			thisMin = 0
			thisScale = sumXL / sumL2
		}
		var curErr float32
		for i := range n {
			diff := thisScale*float32(laux[i]) + thisMin - x[i]
			curErr += weights[i] * (diff * diff)
		}
		if curErr < bestErr {
			copy(L[:n], laux[:n])
			bestErr, scale, lo = curErr, thisScale, thisMin
		}
	}
	return scale, -lo
}

// QuantizeQ6_K packs src (a whole number of 256-element super-blocks) as Q6_K blocks of
// 210 bytes, as ggml's quantize_row_q6_K_ref does: per group of 16 a signed scale from
// make_qx_quants (rmse_type 1), the sixteen scales coded as int8 against the block's f16 d,
// then 6-bit q = round(x/scale) clamped to [-32, 31] and stored +32.
func QuantizeQ6_K(src []float32) ([]byte, error) {
	if len(src)%qk != 0 {
		return nil, fmt.Errorf("quantize Q6_K: %d values is not a whole number of 256-element blocks", len(src))
	}
	out := make([]byte, len(src)/qk*210)
	for b := 0; b < len(src)/qk; b++ {
		quantizeBlockQ6_K(out[210*b:210*b+210], src[qk*b:qk*b+qk], true)
	}
	return out, nil
}

// QuantizeQ6_KFast is QuantizeQ6_K without the scale search (make_qx_quants' first grid
// only): the same block layout, several times faster, with a somewhat larger error. For
// random benchmark weights, whose values do not matter.
func QuantizeQ6_KFast(src []float32) ([]byte, error) {
	if len(src)%qk != 0 {
		return nil, fmt.Errorf("quantize Q6_K: %d values is not a whole number of 256-element blocks", len(src))
	}
	out := make([]byte, len(src)/qk*210)
	for b := 0; b < len(src)/qk; b++ {
		quantizeBlockQ6_K(out[210*b:210*b+210], src[qk*b:qk*b+qk], false)
	}
	return out, nil
}

func quantizeBlockQ6_K(y []byte, x []float32, search bool) {
	var (
		l                   [qk]uint8
		scales              [16]float32
		maxScale, maxAbsScl float32
	)
	for ib := range 16 {
		s := makeQXQuants(32, x[16*ib:16*ib+16], l[16*ib:16*ib+16], search)
		scales[ib] = s
		if a := float32(math.Abs(float64(s))); a > maxAbsScl {
			maxAbsScl, maxScale = a, s
		}
	}
	clear(y)
	if maxAbsScl < groupMaxEps {
		return // all zero: d = 0
	}
	iscale := -128 / maxScale
	dh := toF16(1 / iscale)
	binary.LittleEndian.PutUint16(y[208:], dh)
	sc := y[192:208]
	for ib := range 16 {
		sc[ib] = byte(int8(min(127, nearestInt(iscale*scales[ib]))))
	}
	d0 := f16(dh)
	for j := range 16 {
		d := d0 * float32(int8(sc[j]))
		if d == 0 {
			continue
		}
		for i := range 16 {
			l[16*j+i] = uint8(max(-32, min(31, nearestInt(x[16*j+i]/d))) + 32)
		}
	}
	for h := range 2 {
		ql, qh, lh := y[64*h:64*h+64], y[128+32*h:128+32*h+32], l[128*h:128*h+128]
		for i := range 32 {
			ql[i] = lh[i]&0xF | (lh[i+64]&0xF)<<4
			ql[i+32] = lh[i+32]&0xF | (lh[i+96]&0xF)<<4
			qh[i] = lh[i]>>4 | (lh[i+32]>>4)<<2 | (lh[i+64]>>4)<<4 | (lh[i+96]>>4)<<6
		}
	}
}

// makeQXQuants is ggml's make_qx_quants with rmse_type 1 (weights x²) and no importance:
// levels L (stored +nmax) in [0, 2*nmax) and the signed scale x ≈ scale*(L-nmax), trying 18
// stretched grids around max|x| when search is set.
func makeQXQuants(nmax int, x []float32, L []uint8, search bool) float32 {
	var hi, amax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, hi = a, v
		}
	}
	if amax < groupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	fmax := float32(nmax)
	level := func(iscale, v float32) int { return max(-nmax, min(nmax-1, nearestInt(iscale*v))) }
	iscale := -fmax / hi
	var sumLX, sumL2 float32
	for i, v := range x {
		li := level(iscale, v)
		L[i] = uint8(li + nmax)
		w, fl := v*v, float32(li)
		sumLX += w * v * fl
		sumL2 += w * fl * fl
	}
	var scale float32
	if sumL2 != 0 {
		scale = sumLX / sumL2
	}
	if !search {
		return scale
	}
	best := scale * sumLX
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fmax + 0.1*float32(is)) / hi
		sumLX, sumL2 = 0, 0
		for _, v := range x {
			w, fl := v*v, float32(level(iscale, v))
			sumLX += w * v * fl
			sumL2 += w * fl * fl
		}
		if sumL2 > 0 && sumLX*sumLX > best*sumL2 {
			for i, v := range x {
				L[i] = uint8(level(iscale, v) + nmax)
			}
			scale = sumLX / sumL2
			best = scale * sumLX
		}
	}
	return scale
}
