package quant_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/quant"
	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// ggufType is t's ggml type, matched by name (gpu's "q4_k" is ggml's "Q4_K").
func ggufType(t *testing.T, d gpu.DType) gguf.Type {
	for ty := gguf.Type(0); ty < 64; ty++ {
		if ty.Known() && strings.EqualFold(ty.String(), d.String()) {
			e, b := ty.Block()
			if de, db := d.Block(); de != e || db != b {
				t.Fatalf("%v: block %d values/%d bytes, ggml's %d/%d", d, de, db, e, b)
			}
			return ty
		}
	}
	t.Fatalf("%v has no ggml type", d)
	return 0
}

func sameBits(t *testing.T, label string, got, want []float32) {
	t.Helper()
	bad := 0
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if bad < 3 {
				t.Errorf("%s[%d] = %v (%#x), want %v (%#x)", label, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", label, bad, len(got))
	}
}

// TestGolden decodes every tensor of golden gguf/dequant/<TYPE>.gguf and requires the values
// of gguf-py's dequantizer bit for bit (tolerance: none).
func TestGolden(t *testing.T) {
	for _, d := range gpu.QuantTypes() {
		ty := ggufType(t, d)
		t.Run(ty.String(), func(t *testing.T) {
			f, err := gguf.Open(golden.Path(t, "gguf", "dequant", ty.String()+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want := golden.Open(t, "gguf/dequant/"+ty.String()+".safetensors")
			n := 0
			for _, tn := range f.Tensors() {
				if tn.Type != ty {
					continue
				}
				exp, _ := golden.F32(t, want, tn.Name)
				got := make([]float32, tn.Numel())
				if err := quant.Dequantize(d, got, tn.Bytes()); err != nil {
					t.Fatal(err)
				}
				sameBits(t, tn.Name, got, exp)
				n++
			}
			if n == 0 {
				t.Fatalf("no %v tensor in the golden file", ty)
			}
		})
	}
}

// TestRandomBlocks decodes random bytes of every type (any bit pattern is a valid block) and
// requires weights/gguf.Dequantize's values bit for bit.
func TestRandomBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range gpu.QuantTypes() {
		ty := ggufType(t, d)
		be, bb := d.Block()
		src := make([]byte, 64*bb)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		got, want := make([]float32, 64*be), make([]float32, 64*be)
		if err := quant.Dequantize(d, got, src); err != nil {
			t.Fatal(err)
		}
		if err := gguf.Dequantize(ty, want, src); err != nil {
			t.Fatal(err)
		}
		sameBits(t, d.String(), got, want)
	}
}

// TestErrors: wrong sizes and types that are not quantized are errors.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		d    gpu.DType
		n, b int
	}{{gpu.Q8_0, 31, 34}, {gpu.Q8_0, 32, 33}, {gpu.Q4_K, 256, 145}, {gpu.F32, 1, 4}, {gpu.BF16, 1, 2}} {
		if err := quant.Dequantize(c.d, make([]float32, c.n), make([]byte, c.b)); err == nil {
			t.Errorf("Dequantize(%v, %d values, %d bytes): no error", c.d, c.n, c.b)
		}
	}
}

// FuzzDequantize decodes arbitrary bytes as every quant type: never a panic, and the values of
// weights/gguf.Dequantize bit for bit (NaN payloads included).
func FuzzDequantize(f *testing.F) {
	f.Add(make([]byte, 210))
	f.Add([]byte{0xff, 0x7c, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range gpu.QuantTypes() {
			be, bb := d.Block()
			n := len(data) / bb
			src := data[:n*bb]
			got, want := make([]float32, n*be), make([]float32, n*be)
			if err := quant.Dequantize(d, got, src); err != nil {
				t.Fatal(err)
			}
			if err := gguf.Dequantize(ggufType(t, d), want, src); err != nil {
				t.Fatal(err)
			}
			sameBits(t, d.String(), got, want)
			_ = quant.Dequantize(d, got[:max(len(got)-1, 0)], src) // a partial block: an error or nothing
		}
	})
}

// TestDTypesFollowTheTable: gpu's quantized dtypes are the table's packed types, in order
// (internal/ggml): each constant's name, geometry and decoder are its row's.
func TestDTypesFollowTheTable(t *testing.T) {
	names := []string{"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"}
	consts := []gpu.DType{gpu.Q4_0, gpu.Q4_1, gpu.Q5_0, gpu.Q5_1, gpu.Q8_0, gpu.Q2_K, gpu.Q3_K, gpu.Q4_K, gpu.Q5_K, gpu.Q6_K}
	if got := gpu.QuantTypes(); len(got) != len(consts) {
		t.Fatalf("QuantTypes %v, want %v", got, consts)
	}
	for i, d := range consts {
		g, ok := d.GGML()
		be, bb := d.Block()
		ge, gb := g.Block()
		if !ok || d.String() != names[i] || be != ge || bb != gb || quant.Decoder(d) == nil {
			t.Errorf("%v: ggml %v (%v), block %d/%d, ggml's %d/%d", d, g, ok, be, bb, ge, gb)
		}
		if q, ok := gpu.QuantByName(strings.ToUpper(names[i])); !ok || q != d {
			t.Errorf("QuantByName(%q) = %v", names[i], q)
		}
	}
	if gpu.F32.Quantized() || quant.Decoder(gpu.BF16) != nil {
		t.Error("F32 or BF16 taken as quantized")
	}
}
