package cpu

import (
	"kleinbild/gpu/internal/refmath"

	"math"
	"testing"
)

// TestExpf scans expf over its whole finite range against math.Exp: at most 2 ulp relative.
func TestExpf(t *testing.T) {
	worst := 0.0
	for x := float32(-87.3); x < 88.7; x += 0.000731 {
		want := math.Exp(float64(x))
		if rel := math.Abs(float64(expf(x))-want) / want; rel > worst {
			worst = rel
		}
	}
	t.Logf("expf worst relative error %.3g (1 ulp = %.3g)", worst, math.Pow(2, -24))
	if worst > 2*math.Pow(2, -23) {
		t.Errorf("expf worst relative error %.3g > 2 ulp", worst)
	}
	for _, c := range []struct{ x, want float32 }{
		{0, 1}, {-100, 0}, {float32(math.Inf(-1)), 0}, {100, float32(math.Inf(1))}, {-math.MaxFloat32, 0},
	} {
		if got := expf(c.x); got != c.want {
			t.Errorf("expf(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := expf(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("expf(NaN) = %v", got)
	}
}

// TestExpShifted checks the (possibly vectorised) exp(row - max) pass on every length up to 40,
// so both the 8-lane body and the scalar tail run, with masked (finfo.min) and -Inf scores.
func TestExpShifted(t *testing.T) {
	r := seededRand(t)
	for n := 1; n <= 40; n++ {
		row := normals(r, n, 0)
		for i := range row {
			row[i] *= 30
		}
		if n > 3 {
			row[n/2] = -math.MaxFloat32
			row[n/3] = float32(math.Inf(-1))
		}
		ref := refmath.Softmax(refmath.Widen(row)) // normalised: compare shapes, then the sum separately
		m := math.Inf(-1)
		for _, v := range row {
			m = max(m, float64(v))
		}
		var wantSum float64
		for _, v := range row {
			wantSum += math.Exp(float64(v) - m)
		}
		got := append([]float32(nil), row...)
		s := expShifted(got)
		if math.Abs(float64(s)-wantSum) > 1e-6*wantSum {
			t.Errorf("n=%d: sum %v, want %v", n, s, wantSum)
		}
		norm := make([]float32, n)
		for i, v := range got {
			norm[i] = v / s
		}
		checkClose(t, "expShifted", norm, ref, tolRowwise)
		if n > 3 && (got[n/2] != 0 || got[n/3] != 0) {
			t.Errorf("n=%d: masked entries got %v, %v, want 0", n, got[n/2], got[n/3])
		}
	}
	nanRow := []float32{1, 2, 3, 4, float32(math.NaN()), 6, 7, 8, 9}
	if s := expShifted(nanRow); !math.IsNaN(float64(s)) {
		t.Errorf("a NaN score gave sum %v, want NaN", s)
	}
}

// TestWidenBF16 checks the (possibly vectorised) bf16 → f32 widening on every length up to 70
// and on an offset start, including NaN, infinities and subnormals.
func TestWidenBF16(t *testing.T) {
	r := seededRand(t)
	src := make([]uint16, 71)
	for i := range src {
		src[i] = uint16(r.Uint32())
	}
	src[3], src[17], src[20] = 0x7fc0, 0xff80, 0x0001 // NaN, -Inf, subnormal
	for start := 0; start < 2; start++ {
		for n := 0; start+n <= len(src); n++ {
			dst := refmath.NaNs(n + 1)
			dst[n] = 42
			widenBF16(dst, src[start:start+n])
			for i := 0; i < n; i++ {
				if want := math.Float32frombits(uint32(src[start+i]) << 16); math.Float32bits(dst[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d start=%d: dst[%d] = %#x, want %#x", n, start, i, math.Float32bits(dst[i]), math.Float32bits(want))
				}
			}
			if dst[n] != 42 {
				t.Fatalf("n=%d: wrote past the end", n)
			}
		}
	}
}
