package gguf_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/x448/float16"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// kquantCases are the K-quant quantizers with the tolerances of their round trip on standard
// normal data: rel-L2 over the tensor, and the worst |error| of an element over the largest
// magnitude of its 256-element block. Measured: 0.074 / 0.066 (Q4_K), 0.018 / 0.039 (Q6_K),
// 0.081 / 0.066 (Q4_K fast), 0.019 / 0.041 (Q6_K fast).
var kquantCases = []struct {
	name          string
	ty            gguf.Type
	quantize      func([]float32) ([]byte, error)
	relL2, maxRel float64
	blockBytes    int
}{
	{"Q4_K", gguf.Q4_K, gguf.QuantizeQ4_K, 0.085, 0.08, 144},
	{"Q6_K", gguf.Q6_K, gguf.QuantizeQ6_K, 0.021, 0.05, 210},
	{"Q4_KFast", gguf.Q4_K, gguf.QuantizeQ4_KFast, 0.09, 0.08, 144},
	{"Q6_KFast", gguf.Q6_K, gguf.QuantizeQ6_KFast, 0.021, 0.05, 210},
}

// kquantInput is 64 super-blocks of normal data at scales from 1e-3 to 1e3, then an all-zero
// block, a constant block, an all-positive block, a block with one outlier and a block of
// tiny (f16-subnormal scale) values.
func kquantInput() []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	var x []float32
	for b := range 64 {
		s := math.Pow(10, float64(b%7)-3)
		for range 256 {
			x = append(x, float32(r.NormFloat64()*s))
		}
	}
	special := make([]float32, 5*256)
	for i := range 256 {
		special[256+i] = 0.5
		special[512+i] = float32(3 + r.Float64())
		special[768+i] = float32(r.NormFloat64())
		special[1024+i] = float32(r.NormFloat64() * 1e-7)
	}
	special[768+77] = 40
	return append(x, special...)
}

// TestQuantizeKRoundTrip quantizes kquantInput as Q4_K and Q6_K and dequantizes the blocks
// with the bit-exact decoders (TestDequantGolden): the error is within the stated rel-L2 and
// per-block max-abs tolerances, blocks are zero (all-zero input) or exact (constant input)
// where they must be, and every element decodes to the representable value of its group
// nearest to the input (so the fields are where the decoder reads them).
func TestQuantizeKRoundTrip(t *testing.T) {
	x := kquantInput()
	for _, c := range kquantCases {
		t.Run(c.name, func(t *testing.T) {
			q, err := c.quantize(x)
			if err != nil {
				t.Fatal(err)
			}
			if len(q) != len(x)/256*c.blockBytes {
				t.Fatalf("%d bytes for %d values", len(q), len(x))
			}
			y := make([]float32, len(x))
			if err := gguf.Dequantize(c.ty, y, q); err != nil {
				t.Fatal(err)
			}
			normal := 64 * 256
			rel, _ := golden.Errors(y[:normal], x[:normal])
			worst := 0.0
			for b := 0; b < len(x); b += 256 {
				amax, emax := 0.0, 0.0
				for i := b; i < b+256; i++ {
					amax = max(amax, math.Abs(float64(x[i])))
					emax = max(emax, math.Abs(float64(y[i])-float64(x[i])))
				}
				switch {
				case b == 256*68: // 1e-7 values: the scales underflow f16, the block decodes to ~0 (as in ggml)
					if emax > 3e-7 {
						t.Errorf("tiny block: max-abs %.3g", emax)
					}
				case amax > 0:
					worst = max(worst, emax/amax)
				case emax != 0:
					t.Errorf("block %d: zero input decodes to nonzero", b/256)
				}
			}
			t.Logf("rel-L2 %.3g, worst block max-abs/amax %.3g", rel, worst)
			if rel > c.relL2 || worst > c.maxRel {
				t.Errorf("rel-L2 %.3g (want ≤ %g), block max-abs/amax %.3g (want ≤ %g)", rel, c.relL2, worst, c.maxRel)
			}
			for i := 256 * 65; i < 256*66; i++ {
				if y[i] != 0.5 && c.ty == gguf.Q6_K || math.Abs(float64(y[i])-0.5) > 1e-3 {
					t.Fatalf("constant 0.5 decodes to %v", y[i])
				}
			}
			checkNearest(t, c.ty, x, y, q)
		})
	}
}

// checkNearest requires every decoded element to be the representable value of its group
// (from the block's fields as golden/gguf/README.md lays them out) nearest to the input, up
// to float32 rounding of the quantizer's (x+min)/d.
func checkNearest(t *testing.T, ty gguf.Type, x, y []float32, q []byte) {
	t.Helper()
	bad := 0
	for b := 0; b < len(x)/256; b++ {
		for g := range 256 / 32 {
			var grid []float32
			groupLen := 32
			if ty == gguf.Q4_K {
				blk := q[144*b : 144*b+144]
				d := float16.Frombits(binary.LittleEndian.Uint16(blk)).Float32()
				dmin := float16.Frombits(binary.LittleEndian.Uint16(blk[2:])).Float32()
				s := blk[4:16]
				sc, mn := s[g]&63, s[g+4]&63
				if g >= 4 {
					sc, mn = s[g+4]&15|(s[g-4]>>6)<<4, s[g+4]>>4|(s[g]>>6)<<4
				}
				for l := range 16 {
					grid = append(grid, d*float32(sc)*float32(l)-dmin*float32(mn))
				}
			}
			for sub := range 2 {
				if ty == gguf.Q6_K {
					blk := q[210*b : 210*b+210]
					d := float16.Frombits(binary.LittleEndian.Uint16(blk[208:])).Float32()
					sc := float32(int8(blk[192+2*g+sub]))
					grid = grid[:0]
					for l := -32; l < 32; l++ {
						grid = append(grid, d*sc*float32(l))
					}
					groupLen = 16
				} else if sub == 1 {
					break
				}
				off := 256*b + 32*g + groupLen*sub
				for i := off; i < off+groupLen; i++ {
					best, onGrid := math.Inf(1), false
					for _, v := range grid {
						best = min(best, math.Abs(float64(v-x[i])))
						onGrid = onGrid || v == y[i]
					}
					e := math.Abs(float64(y[i] - x[i]))
					if !onGrid || e > best+1e-5*(math.Abs(float64(x[i]))+math.Abs(float64(grid[len(grid)-1]))) {
						if bad < 3 {
							t.Errorf("block %d element %d: %v decodes to %v (on the grid: %v), nearest representable is %g away", b, i%256, x[i], y[i], onGrid, best)
						}
						bad++
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d elements not at their nearest representable value", bad)
	}
}

// TestQuantizeKGolden requantizes the golden K-quant weight tensors (dequantized values of
// gguf_blocks.encode_k's blocks): the round trip through our quantizer stays within the same
// tolerances as on normal data (Q4_K: gives encode_k's bytes back exactly), and partial
// blocks are refused.
func TestQuantizeKGolden(t *testing.T) {
	for _, c := range kquantCases {
		f, err := gguf.Open(golden.Path(t, "gguf", "dequant", c.ty.String()+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tn := range f.Tensors() {
			v, err := tn.Float32()
			if err != nil {
				t.Fatal(err)
			}
			if tn.Shape[len(tn.Shape)-1]%256 != 0 || len(tn.Shape) != 2 || tn.Name[:7] != "weights" {
				continue
			}
			n++
			q, err := c.quantize(v)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float32, len(v))
			if err := gguf.Dequantize(c.ty, y, q); err != nil {
				t.Fatal(err)
			}
			rel, maxAbs := golden.Errors(y, v)
			t.Logf("%s %s: rel-L2 %.3g max-abs %.3g", c.ty, tn.Name, rel, maxAbs)
			if rel > c.relL2 {
				t.Errorf("%s %s: rel-L2 %.3g, want ≤ %g", c.ty, tn.Name, rel, c.relL2)
			}
			if c.name == "Q4_K" && !bytes.Equal(q, tn.Bytes()) {
				t.Errorf("%s %s: requantized bytes differ from the file's", c.ty, tn.Name)
			}
		}
		f.Close()
		if n == 0 {
			t.Errorf("%s: no golden weight tensors", c.ty)
		}
		if _, err := c.quantize(make([]float32, 255)); err == nil {
			t.Errorf("%s: quantized 255 values", c.ty)
		}
	}
}

// BenchmarkQuantizeK reports the K-quant quantizers' speed on 1 Mi normal values.
func BenchmarkQuantizeK(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for _, c := range kquantCases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				if _, err := c.quantize(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
