package weights_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"kleinbild/weights"
)

// TestBF16ToF32 converts every bit pattern, with and without an odd-length tail.
func TestBF16ToF32(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	for _, n := range []int{len(src), len(src) - 3, 7, 1, 0} {
		dst := make([]float32, n+2) // longer than src: only n values are written
		dst[n], dst[n+1] = 42, 42
		weights.BF16ToF32(dst, src[:n])
		for i, v := range src[:n] {
			if got := math.Float32bits(dst[i]); got != uint32(v)<<16 {
				t.Fatalf("n=%d: BF16ToF32(%#04x) = %#08x, want %#08x", n, v, got, uint32(v)<<16)
			}
		}
		if dst[n] != 42 || dst[n+1] != 42 {
			t.Fatalf("n=%d: wrote past len(src)", n)
		}
	}
	for _, c := range []struct {
		bits uint16
		want float64
	}{
		{0x3f80, 1}, {0xc000, -2}, {0x3e80, 0.25}, {0x4049, 3.140625}, {0x0001, math.Ldexp(1, -133)},
		{0x7f7f, math.Ldexp(255, 120)}, {0x7f80, math.Inf(1)}, {0xff80, math.Inf(-1)}, {0x8000, 0},
	} {
		d := make([]float32, 1)
		weights.BF16ToF32(d, []uint16{c.bits})
		if float64(d[0]) != c.want {
			t.Errorf("BF16ToF32(%#04x) = %v, want %v", c.bits, d[0], c.want)
		}
	}
	d := make([]float32, 1)
	weights.BF16ToF32(d, []uint16{0x7fc0})
	if !math.IsNaN(float64(d[0])) {
		t.Errorf("BF16ToF32(0x7fc0) = %v, want NaN", d[0])
	}
}

// refRoundBF16 rounds f to the nearest bfloat16 by comparing the two neighbouring bf16
// values in float64 (exact there), ties to the even bit pattern.
func refRoundBF16(f float32) uint16 {
	b := math.Float32bits(f)
	lo := uint16(b >> 16)
	if b&0xffff == 0 {
		return lo
	}
	hi := lo + 1 // away from zero in magnitude (sign is in the top bit)
	x := math.Abs(float64(f))
	vlo := math.Abs(float64(math.Float32frombits(uint32(lo) << 16)))
	var vhi float64
	if hi&0x7fff == 0x7f80 {
		vhi = math.Ldexp(1, 128) // rounding past MaxFloat32-ish goes to Inf: treat Inf as 2^128
	} else {
		vhi = math.Abs(float64(math.Float32frombits(uint32(hi) << 16)))
	}
	switch dlo, dhi := x-vlo, vhi-x; {
	case dlo < dhi:
		return lo
	case dhi < dlo:
		return hi
	case lo&1 == 0:
		return lo
	default:
		return hi
	}
}

// TestRoundBF16 checks nearest-even rounding, ties, signed zeros, subnormals, overflow to
// infinity, infinities and NaNs, then random values against an independent reference.
func TestRoundBF16(t *testing.T) {
	cases := []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // 1 + 2^-8: tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up to even
		{0x3f808001, 0x3f81}, // just above the tie
		{0x3f807fff, 0x3f80}, // just below the tie
		{0xbf818000, 0xbf82}, // negative tie rounds away from zero to even
		{0xbf808000, 0xbf80},
		{0x00000000, 0x0000},
		{0x80000000, 0x8000},
		{0x00008000, 0x0000}, // subnormal tie to even zero
		{0x00018000, 0x0002}, // subnormal tie, odd up
		{0x007fffff, 0x0080}, // largest subnormal rounds to the smallest normal
		{0x7f7fffff, 0x7f80}, // MaxFloat32 overflows to +Inf
		{0xff7fffff, 0xff80}, // -MaxFloat32 to -Inf
		{0x7f7f7fff, 0x7f7f}, // largest value that stays finite
		{0x7f7f8000, 0x7f80}, // tie at the top: odd rounds up to Inf
		{0x7f800000, 0x7f80}, // +Inf
		{0xff800000, 0xff80}, // -Inf
	}
	for _, c := range cases {
		if got := weights.RoundBF16(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("RoundBF16(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
		if ref := refRoundBF16(math.Float32frombits(c.in)); ref != c.want {
			t.Errorf("reference(%#08x) = %#04x, want %#04x (test bug)", c.in, ref, c.want)
		}
	}
	for _, nan := range []uint32{0x7fc00000, 0x7f800001, 0x7fffffff, 0xffc00000, 0xff800001, 0x7f80ffff} {
		got := weights.RoundBF16(math.Float32frombits(nan))
		if got&0x7f80 != 0x7f80 || got&0x7f == 0 || got&0x40 == 0 {
			t.Errorf("RoundBF16(NaN %#08x) = %#04x, want a quiet NaN", nan, got)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		b := rng.Uint32()
		f := math.Float32frombits(b)
		if math.IsNaN(float64(f)) {
			continue
		}
		if got, want := weights.RoundBF16(f), refRoundBF16(f); got != want {
			t.Fatalf("RoundBF16(%#08x) = %#04x, reference %#04x", b, got, want)
		}
	}
	src := []float32{1, 1.00390625, -2.5, float32(math.Inf(-1))}
	dst := make([]uint16, 4)
	weights.F32ToBF16(dst, src)
	for i, f := range src {
		if dst[i] != weights.RoundBF16(f) {
			t.Errorf("F32ToBF16[%d] = %#04x", i, dst[i])
		}
	}
}

// TestF16ToF32 checks IEEE half conversion on known values.
func TestF16ToF32(t *testing.T) {
	cases := []struct {
		bits uint16
		want float64
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3800, 0.5}, {0x3555, 0.333251953125},
		{0x7bff, 65504}, {0xfbff, -65504}, {0x0400, math.Ldexp(1, -14)}, {0x0001, math.Ldexp(1, -24)},
		{0x03ff, math.Ldexp(1023, -24)}, {0x4248, 3.140625}, {0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)},
	}
	src := make([]uint16, len(cases))
	for i, c := range cases {
		src[i] = c.bits
	}
	dst := make([]float32, len(cases))
	weights.F16ToF32(dst, src)
	for i, c := range cases {
		if float64(dst[i]) != c.want {
			t.Errorf("F16ToF32(%#04x) = %v, want %v", c.bits, dst[i], c.want)
		}
	}
	neg := make([]float32, 1)
	weights.F16ToF32(neg, []uint16{0x8000})
	if neg[0] != 0 || !math.Signbit(float64(neg[0])) {
		t.Errorf("F16ToF32(0x8000) = %v, want -0", neg[0])
	}
	for _, nan := range []uint16{0x7e00, 0x7c01, 0xfe00} {
		weights.F16ToF32(neg, []uint16{nan})
		if !math.IsNaN(float64(neg[0])) {
			t.Errorf("F16ToF32(%#04x) = %v, want NaN", nan, neg[0])
		}
	}
}

const benchValues = 16 << 20

// bf16Plain is the straightforward loop BF16ToF32 replaced, kept for comparison.
func bf16Plain(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = math.Float32frombits(uint32(v) << 16)
	}
}

// bf16Split runs BF16ToF32 on two goroutines, one half each.
func bf16Split(dst []float32, src []uint16) {
	h := len(src) / 2
	var wg sync.WaitGroup
	wg.Go(func() { weights.BF16ToF32(dst[h:], src[h:]) })
	weights.BF16ToF32(dst[:h], src[:h])
	wg.Wait()
}

// BenchmarkBF16ToF32 converts 16M values with BF16ToF32, the plain loop it replaced, and
// BF16ToF32 split over two goroutines, reporting values/s.
func BenchmarkBF16ToF32(b *testing.B) {
	src := make([]uint16, benchValues)
	for i := range src {
		src[i] = uint16(i * 40503)
	}
	dst := make([]float32, benchValues)
	for _, v := range []struct {
		name string
		conv func([]float32, []uint16)
	}{{"unrolled", weights.BF16ToF32}, {"plain", bf16Plain}, {"unrolled-2goroutines", bf16Split}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(benchValues * 6) // 2 bytes read + 4 written per value
			for b.Loop() {
				v.conv(dst, src)
			}
			b.ReportMetric(float64(benchValues)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
}
