package gguf_test

import (
	"math"
	"slices"
	"testing"

	"github.com/x448/float16"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// goldenTypes are the types with vectors in golden gguf/dequant (one <TYPE>.gguf each).
var goldenTypes = []gguf.Type{gguf.F32, gguf.F16, gguf.BF16, gguf.Q8_0, gguf.Q4_0, gguf.Q4_1,
	gguf.Q5_0, gguf.Q5_1, gguf.Q2_K, gguf.Q3_K, gguf.Q4_K, gguf.Q5_K, gguf.Q6_K}

// TestDequantGolden dequantizes every tensor of golden gguf/dequant/<TYPE>.gguf (random blocks
// with zero and subnormal scales, and quantized weights) and requires the float32 values of
// gguf-py's dequantizer bit for bit. Tolerance: none (exact bits, NaN payloads included).
func TestDequantGolden(t *testing.T) {
	for _, ty := range goldenTypes {
		t.Run(ty.String(), func(t *testing.T) {
			f, err := gguf.Open(golden.Path(t, "gguf", "dequant", ty.String()+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if a := f.Architecture(); a != "golden" {
				t.Errorf("general.architecture = %q, want golden", a)
			}
			want := golden.Open(t, "gguf/dequant/"+ty.String()+".safetensors")
			if got, exp := slices.Sorted(slices.Values(f.Names())), want.Names(); !slices.Equal(got, exp) {
				t.Fatalf("tensors %v, want %v", got, exp)
			}
			for _, tn := range f.Tensors() {
				if tn.Type != ty {
					t.Errorf("%s: type %s, want %s", tn.Name, tn.Type, ty)
				}
				exp, shape := golden.F32(t, want, tn.Name)
				if !slices.Equal(tn.Shape, shape) {
					t.Errorf("%s: shape %v, want %v", tn.Name, tn.Shape, shape)
					continue
				}
				got, err := tn.Float32()
				if err != nil {
					t.Fatal(err)
				}
				bad := 0
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(exp[i]) {
						if bad < 3 {
							t.Errorf("%s[%d] = %v (%#x), want %v (%#x)", tn.Name, i, got[i], math.Float32bits(got[i]), exp[i], math.Float32bits(exp[i]))
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("%s: %d of %d values differ", tn.Name, bad, len(got))
				}
			}
		})
	}
}

// TestF16Exhaustive compares the half-to-float conversion with x448/float16 for all 65536
// bit patterns (NaNs: both NaN with the same sign).
func TestF16Exhaustive(t *testing.T) {
	src := make([]byte, 2*65536)
	for h := range 65536 {
		src[2*h], src[2*h+1] = byte(h), byte(h>>8)
	}
	dst := make([]float32, 65536)
	if err := gguf.Dequantize(gguf.F16, dst, src); err != nil {
		t.Fatal(err)
	}
	for h := range 65536 {
		want := float16.Frombits(uint16(h)).Float32()
		got := dst[h]
		if math.IsNaN(float64(want)) {
			if !math.IsNaN(float64(got)) || math.Signbit(float64(got)) != math.Signbit(float64(want)) {
				t.Fatalf("%#04x: %v, want NaN", h, got)
			}
			continue
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("%#04x: %v, want %v", h, got, want)
		}
	}
}

// TestDequantizeErrors: wrong sizes and unsupported types are errors, never a panic.
func TestDequantizeErrors(t *testing.T) {
	cases := []struct {
		ty   gguf.Type
		n, b int
	}{
		{gguf.Q8_0, 31, 34},   // not a whole block
		{gguf.Q8_0, 32, 33},   // short data
		{gguf.Q4_K, 256, 145}, // long data
		{gguf.IQ4_XS, 256, 136},
		{gguf.Type(99), 1, 1},
	}
	for _, c := range cases {
		if err := gguf.Dequantize(c.ty, make([]float32, c.n), make([]byte, c.b)); err == nil {
			t.Errorf("Dequantize(%s, %d elements, %d bytes): no error", c.ty, c.n, c.b)
		}
	}
	for _, ty := range goldenTypes {
		if !ty.Dequantizable() || !ty.Known() {
			t.Errorf("%s: Dequantizable/Known false", ty)
		}
	}
	if gguf.IQ2_XXS.Dequantizable() || gguf.Type(5).Known() {
		t.Error("IQ2_XXS dequantizable or type 5 known")
	}
}
