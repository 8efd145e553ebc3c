package onednn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// f32Ref is a plain f32 backend for the tests (the package does not import the real ones).
type f32Ref struct{}

func (f32Ref) Name() string { return "ref" }
func (f32Ref) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	panic("not used")
}

func TestRoundBF16(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81},
		{float32(math.Inf(-1)), 0xff80},
		{math.MaxFloat32, 0x7f80}, // overflows to +Inf as torch does
	}
	for _, c := range cases {
		var got [1]uint16
		roundBF16(got[:], []float32{c.in})
		if got[0] != c.want {
			t.Errorf("roundBF16(%#08x) = %#04x, want %#04x", math.Float32bits(c.in), got[0], c.want)
		}
	}
	var nan [1]uint16
	roundBF16(nan[:], []float32{float32(math.NaN())})
	if v := math.Float32frombits(uint32(nan[0]) << 16); !math.IsNaN(float64(v)) {
		t.Errorf("NaN rounds to %#04x", nan[0])
	}
}

// TestMatMulBF16 checks the product against float64 sums of the bf16-rounded operands; the only
// error left is float32 accumulation. The conformance suite (gpu/gputest) covers the backend as a whole.
func TestMatMulBF16(t *testing.T) {
	b, err := New(f32Ref{})
	if err != nil {
		t.Skipf("oneDNN unavailable: %v", err)
	}
	t.Log(b.Info())
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 7}, {37, 300, 129}, {300, 64, 2048}} {
		m, n, k := sh[0], sh[1], sh[2]
		x := make([]float32, m*k)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		w := make([]uint16, n*k)
		for i := range w {
			roundBF16(w[i:i+1], []float32{float32(r.NormFloat64() / math.Sqrt(float64(k)))})
		}
		xb := make([]uint16, len(x))
		roundBF16(xb, x)
		ldy := n + m%2*3 // odd m: rows of y 3 apart beyond n (a tile of Linear's output)
		y := make([]float32, (m-1)*ldy+n)
		for i := range y {
			y[i] = float32(math.NaN())
		}
		b.MatMulBF16(y, x, m, n, k, w, ldy)
		for i := range m - 1 {
			for j := n; j < ldy; j++ {
				if !math.IsNaN(float64(y[i*ldy+j])) {
					t.Fatalf("%v: y[%d,%d] beyond n was written", sh, i, j)
				}
			}
		}
		var num, den float64
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for p := 0; p < k; p++ {
					s += bf(xb[i*k+p]) * bf(w[j*k+p])
				}
				d := float64(y[i*ldy+j]) - s
				num += d * d
				den += s * s
			}
		}
		rel := math.Sqrt(num / den)
		if tol := 2e-7 * math.Sqrt(float64(max(k, 16))); !(rel <= tol) {
			t.Errorf("m=%d n=%d k=%d: rel-L2 %.3g > %.3g", m, n, k, rel, tol)
		} else {
			t.Logf("m=%d n=%d k=%d: rel-L2 %.3g", m, n, k, rel)
		}
	}
}

func bf(v uint16) float64 { return float64(math.Float32frombits(uint32(v) << 16)) }

// TestLoadFailure: a missing library, or one without the oneDNN symbols, is an error naming it.
func TestLoadFailure(t *testing.T) {
	for _, name := range []string{"libdnnl-does-not-exist.so.9", "libc.so.6"} {
		if l, err := loadNamed(name); err == nil || l != nil {
			t.Errorf("loadNamed(%q) = %v, %v; want an error", name, l, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
