//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"kleinbild/gpu"
)

// TestLinearVec runs Linear (with and without bias) and LinearAdd on bf16 weights at shapes
// where the vector-load kernels run (k a multiple of 8, at least 128 rows and outputs): a k
// that is not a multiple of the step (16: no whole tile), whole
// 128 × 128 tiles (linearvi.comp) with partial ones to their right and below (linearv.comp),
// whole tiles only, and an x whose offset is not a multiple of 4 (linear128.comp instead),
// against a float64 product of the same operands (the conformance suite's shapes have no
// whole tile at such a k).
func TestLinearVec(t *testing.T) {
	b, err := open(Options{Device: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer b.Close()
	for _, sh := range [][4]int{{300, 136, 260, 0}, {260, 64, 300, 0}, {128, 64, 128, 0}, {130, 16, 257, 1}} {
		rows, in, out, xoff := sh[0], sh[1], sh[2], sh[3]
		r := rand.New(rand.NewPCG(uint64(rows), uint64(in)))
		x := make([]float32, xoff+rows*in)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		bits := make([]uint16, out*in)
		for i := range bits {
			bits[i] = uint16(math.Float32bits(float32(r.NormFloat64()/math.Sqrt(float64(in)))) >> 16)
		}
		bias, y0 := make([]float32, out), make([]float32, rows*out)
		for i := range bias {
			bias[i] = float32(r.NormFloat64())
		}
		for i := range y0 {
			y0[i] = float32(r.NormFloat64())
		}
		xt, err1 := gpu.FromHost(b, x)
		w, err2 := b.WeightBF16(bits, out, in)
		bt, err3 := gpu.FromHost(b, bias)
		if err := firstErr(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		xv := xt.Slice(xoff, xoff+rows*in).Reshape(rows, in)
		for _, mode := range []string{"plain", "bias", "add"} {
			t.Run(fmt.Sprintf("%dx%d-%d+%d/%s", rows, in, out, xoff, mode), func(t *testing.T) {
				y, err := gpu.FromHost(b, y0, rows, out)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Free(y)
				const s = 0.75
				switch mode {
				case "plain":
					b.Linear(y, xv, w, gpu.Tensor{}, rows)
				case "bias":
					b.Linear(y, xv, w, bt, rows)
				default:
					b.LinearAdd(y, xv, w, rows, s)
				}
				got := make([]float32, rows*out)
				if err := firstErr(b.Sync(), b.Read(got, y)); err != nil {
					t.Fatal(err)
				}
				var num, den, worst, big float64
				for i := range rows {
					for o := range out {
						var sum float64
						for k := range in {
							sum += float64(x[xoff+i*in+k]) * float64(math.Float32frombits(uint32(bits[o*in+k])<<16))
						}
						switch mode {
						case "bias":
							sum += float64(bias[o])
						case "add":
							sum = float64(y0[i*out+o]) + s*sum
						}
						d := float64(got[i*out+o]) - sum
						num, den = num+d*d, den+sum*sum
						worst, big = max(worst, math.Abs(d)), max(big, math.Abs(sum))
					}
				}
				tol := 2e-7 * math.Sqrt(float64(max(in, 16)))
				if rel := math.Sqrt(num / den); !(rel <= tol) || !(worst <= 16*tol*big) {
					t.Errorf("rel-L2 %.3g (tolerance %.3g), max abs %.3g (tolerance %.3g)", rel, tol, worst, 16*tol*big)
				}
			})
		}
		for _, tt := range []gpu.Tensor{xt, w, bt} {
			b.Free(tt)
		}
	}
}
