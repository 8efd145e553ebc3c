package vae

import (
	"math"
	"math/rand/v2"
	"testing"

	"kleinbild/gpu"
)

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// TestPatchifyLayout checks the backend's latent layout ops the pipeline uses (Patchify,
// Unpatchify, and Transpose as pack/unpack) index by index on random data.
func TestPatchifyLayout(t *testing.T) {
	b := device()
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ c, h, w int }{{1, 2, 2}, {3, 4, 6}, {7, 10, 2}, {32, 8, 14}} {
		x := randSlice(r, s.c*s.h*s.w)
		p := patchify(t, b, x, s.c, s.h, s.w)
		h2, w2 := s.h/2, s.w/2
		for c := range s.c {
			for y := range s.h {
				for xx := range s.w {
					got := p[(c*4+(y%2)*2+xx%2)*h2*w2+(y/2)*w2+xx/2]
					if want := x[(c*s.h+y)*s.w+xx]; got != want {
						t.Fatalf("%v: patch value for (%d,%d,%d) is %v, want %v", s, c, y, xx, got, want)
					}
				}
			}
		}
		exact(t, "Unpatchify(Patchify)", unpatchify(t, b, p, 4*s.c, h2, w2), x)

		pk := pack(t, b, x, s.c, s.h*s.w)
		for c := range s.c {
			for q := range s.h * s.w {
				if pk[q*s.c+c] != x[c*s.h*s.w+q] {
					t.Fatalf("%v: pack token %d channel %d wrong", s, q, c)
				}
			}
		}
		exact(t, "unpack(pack)", unpack(t, b, pk, s.c, s.h*s.w), x)
	}
}

// TestLayoutErrors checks that bad layout arguments are reported by the backend (at the
// next Sync) and that the host conversions panic on them.
func TestLayoutErrors(t *testing.T) {
	b := device()
	x := upload(t, b, make([]float32, 48), 48)
	y, err := b.Alloc(gpu.F32, 48)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(y) })
	for name, fn := range map[string]func(){
		"Patchify odd":        func() { b.Patchify(y, x, 3, 3, 4) },
		"Patchify length":     func() { b.Patchify(y, x.Slice(0, 10), 1, 2, 8) },
		"Unpatchify channels": func() { b.Unpatchify(y, x, 6, 2, 2) },
		"pack length":         func() { b.Transpose(y, x, 7, 7) },
	} {
		fn()
		if err := b.Sync(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	for name, fn := range map[string]func(){
		"ToNP length":          func() { ToNP(make([]float32, 5), 1, 2) },
		"ToRGB negative width": func() { ToRGB(nil, 1, -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}

func TestToRGBRounding(t *testing.T) {
	type tc struct {
		x    float32
		want uint8
	}
	cases := []tc{
		{-1, 0}, {1, 255}, {-7, 0}, {9, 255},
		{0, 128}, // 0.5·255 = 127.5 -> 128
		{float32(math.NaN()), 0},
		{float32(math.Inf(1)), 255},
		{float32(math.Inf(-1)), 0},
	}
	// Decoded values whose float32 product x·255 is exactly k+0.5 with k even: numpy rounds
	// them down to k (half to even), rounding half up would give k+1.
	ties := 0
	for k := 64; k < 254; k += 2 {
		v := float32((float64(k) + 0.5) / 255)
		x := (v - 0.5) * 2
		if toUnit(x) == v && float32(v*255) == float32(k)+0.5 {
			cases = append(cases, tc{x, uint8(k)})
			ties++
		}
	}
	if ties == 0 {
		t.Fatal("found no exact ties to test")
	}
	n := len(cases)
	x := make([]float32, 3*n)
	for i, c := range cases {
		x[i], x[n+i], x[2*n+i] = c.x, c.x, c.x
	}
	img := ToRGB(x, 1, n)
	np := ToNP(x, 1, n)
	for i, c := range cases {
		for ch := range 3 {
			if got := img.Pix[4*i+ch]; got != c.want {
				t.Errorf("x=%v: byte %d, want %d", c.x, got, c.want)
			}
		}
		if img.Pix[4*i+3] != 255 {
			t.Errorf("alpha %d", img.Pix[4*i+3])
		}
		if g := np[3*i]; !math.IsNaN(float64(c.x)) && !(g >= 0 && g <= 1) {
			t.Errorf("x=%v: np value %v outside [0, 1]", c.x, g)
		}
	}
	t.Logf("%d exact .5 ties checked", ties)
}
