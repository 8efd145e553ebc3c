//go:build amd64 && !purego

package cpu

import "kleinbild/gpu/cpu/internal/cpufeat"

//go:noescape
func maxAVX2(x []float32) float32

//go:noescape
func expShiftedAVX2(x []float32, m float32) float32

// expShifted replaces row by exp(row - max(row)) and returns the sum of the new values. On
// AVX2+FMA machines the bulk runs 8 lanes at a time with the same polynomial as expf.
func expShifted(row []float32) float32 {
	n8 := len(row) &^ 7
	if !cpufeat.AVX2FMA() || n8 == 0 {
		return expShiftedGo(row)
	}
	m := maxAVX2(row[:n8])
	for _, v := range row[n8:] {
		if v > m {
			m = v
		}
	}
	s := expShiftedAVX2(row[:n8], m)
	for i, v := range row[n8:] {
		e := expf(v - m)
		row[n8+i] = e
		s += e
	}
	return s
}
