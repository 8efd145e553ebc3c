//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
	"kleinbild/gpu/quant"
)

// TestGemmQuantForms runs Linear by quantized weights on the generated tiles, against the
// float64 product of the weight dequantized on the host by package quant (ggml's decoders),
// at the conformance suite's Linear tolerance (rel-L2 ≤ 2e-7·√k, max abs ≤ 10× that of
// max |ref|). The default variant (vec4 loads) and the scalar-load variant run every type
// of QuantTypes in every form: interior tiles beside ragged edges (130 rows × 288 outputs),
// a few rows (the small-M tile), and dispatches split by a small FLOP bound; every other
// generated variant runs one type (a different one each) on the first shape, and the legacy
// variant keeps the first kernel (linear.wgsl with the block loader). The test checks that
// the forms were compiled as such (pipeline names) and that no legacy quant kernel ran on
// the tiles.
func TestGemmQuantForms(t *testing.T) {
	b := open(t)
	r := rand.New(rand.NewPCG(9, 10))
	names := b.Variants(FamilyLinear)
	types := QuantTypes()
	full := map[string]bool{names[0]: true}
	for _, v := range names {
		if strings.Contains(v, "-v1-") {
			full[v] = true
			break
		}
	}
	for i, v := range names {
		t.Run(v, func(t *testing.T) {
			if err := b.SetVariant(FamilyLinear, v); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = b.SetVariant(FamilyLinear, names[0]); b.SetDispatchFLOPs(0) })
			ts := []gpu.DType{types[i%len(types)]}
			if full[v] {
				ts = types
			}
			for _, d := range ts {
				quantCase(t, b, r, d, 130, 256, 288, 0)
				if full[v] {
					quantCase(t, b, r, d, 3, 512, 40, 0)
					quantCase(t, b, r, d, 130, 256, 136, 1)
				}
			}
			if v == legacyVariant {
				if !hasPipe(b, "linear-", "") {
					t.Error("the legacy variant did not run the first quant kernel")
				}
				return
			}
			want := []string{"/interior"}
			for _, d := range ts {
				want = append(want, "/"+d.String())
			}
			if strings.Contains(v, "-v4-") {
				want = append(want, "/bq4/")
			} else {
				want = append(want, "/bq1/")
			}
			for _, w := range want {
				if !hasPipe(b, FamilyLinear+"/"+v+"/", w) {
					t.Errorf("no %s form of %s was compiled for quantized weights", w, v)
				}
			}
			// the legacy variant comes last: before it, no quant kernel of its own ran
			if hasPipe(b, "linear-", "") {
				t.Errorf("%s ran a quantized weight on the first kernel", v)
			}
		})
	}
}

// quantCase runs one Linear of rows × in → out by a random weight of type d (a view a few
// blocks into its buffer), with a bias, under dispatch bound budget, and checks it.
func quantCase(t *testing.T, b *Backend, r *rand.Rand, d gpu.DType, rows, in, out int, budget float64) {
	t.Helper()
	b.SetDispatchFLOPs(budget)
	label := fmt.Sprintf("Linear %v %dx%d→%d budget=%g", d, rows, in, out, budget)
	be, _ := d.Block()
	pad := 3 * be
	raw := randBlocks(r, d, pad+out*in)
	wide := make([]float32, out*in)
	if err := quant.Dequantize(d, wide, raw[d.PackedBytes(pad):]); err != nil {
		t.Fatal(err)
	}
	base, err := b.WeightQuant(d, raw, pad+out*in)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	w := base.Slice(pad, pad+out*in).Reshape(out, in)
	xh, bh := randF32(r, rows*in, 1), randF32(r, out, 1)
	x, _ := gpu.FromHost(b, xh, rows, in)
	bias, _ := gpu.FromHost(b, bh)
	y, _ := gpu.FromHost(b, refmath.NaNs(rows*out), rows, out)
	b.Linear(y, x, w, bias, rows)
	got, err := gpu.ToHost(b, y)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	want := make([]float64, rows*out)
	for i := range rows {
		for o := range out {
			s := float64(bh[o])
			for k := range in {
				s += float64(xh[i*in+k]) * float64(wide[o*in+k])
			}
			want[i*out+o] = s
		}
	}
	checkClose(t, label, got, want, in)
	for _, x := range []gpu.Tensor{base, x, bias, y} {
		b.Free(x)
	}
}

// randBlocks returns n elements of dtype d as random blocks whose float16 scales (the
// fields ggml's table names) lie in [2⁻⁸, 2⁻⁶), minimums of either sign, as the
// conformance suite makes them: values stay O(1) and finite.
func randBlocks(r *rand.Rand, d gpu.DType, n int) []byte {
	be, bb := d.Block()
	raw := make([]byte, n/be*bb)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	g, _ := d.GGML()
	tr, _ := g.Traits()
	for blk := 0; blk < len(raw); blk += bb {
		for k, off := range tr.Scales {
			h := uint16(0x1c00) | uint16(r.IntN(0x800))
			if k > 0 && r.IntN(2) == 0 {
				h |= 0x8000
			}
			binary.LittleEndian.PutUint16(raw[blk+off:], h)
		}
	}
	return raw
}

// BenchmarkGemmLinearQuant runs Linear by each quantized type of QuantTypes at 256 rows ×
// 2048 → 2048 (a reduced 256² projection) on the variants of benchVariants: by default the
// reference tiles and the first 64×64 kernel side by side. GFLOP/s counts 2·rows·in·out.
func BenchmarkGemmLinearQuant(bb *testing.B) {
	b := openB(bb)
	const rows, in, out = 256, 2048, 2048
	r := rand.New(rand.NewPCG(1, 2))
	x, err := gpu.FromHost(b, randF32(r, rows*in, 1), rows, in)
	if err != nil {
		bb.Fatal(err)
	}
	y, _ := b.Alloc(gpu.F32, rows, out)
	for _, d := range QuantTypes() {
		w, err := b.WeightQuant(d, randBlocks(r, d, out*in), out, in)
		if err != nil {
			bb.Fatal(err)
		}
		for _, v := range benchVariants(b, FamilyLinear) {
			bb.Run(fmt.Sprintf("%dx%d-%d/%s/%s", rows, in, out, d, v), func(bb *testing.B) {
				if err := b.SetVariant(FamilyLinear, v); err != nil {
					bb.Fatal(err)
				}
				b.Linear(y, x, w, gpu.Tensor{}, rows)
				if err := b.Sync(); err != nil {
					bb.Fatal(err)
				}
				bb.ResetTimer()
				for range bb.N {
					b.Linear(y, x, w, gpu.Tensor{}, rows)
					if err := b.Sync(); err != nil {
						bb.Fatal(err)
					}
				}
				bb.ReportMetric(2*float64(rows)*float64(in)*float64(out)*float64(bb.N)/bb.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		b.Free(w)
	}
	b.Free(x)
	b.Free(y)
}
