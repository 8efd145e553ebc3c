//go:build cgo

package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/internal/refmath"
)

// optionVariants are the adapter's Linear variants with options of gemm_variants.go.
func optionVariants(b *Backend) []string {
	var out []string
	for _, v := range b.Variants(FamilyLinear) {
		if c, ok := parseGemm(v); ok && c.optionsName() != "" {
			out = append(out, v)
		}
	}
	return out
}

// TestGemmOptions runs every Linear variant with options (vec4 stores, warp tiles, double
// buffers, split K) on the shapes their forms need: K = 9216 with few rows (the deep class:
// split into slices; below 9 rows on the small-M tile, split for split-K variants), ragged M, N and K (K not a multiple of
// the K step or of a slice; N not a multiple of 4: scalar stores), a product split into
// several dispatches (the split buffer shared by its blocks), LinearAdd through the
// reduction, and NaN and ±Inf in x and in the weight. Results are compared with a float64
// reference as TestGemmForms does (rel-L2 ≤ 2e-7·√k, max abs ≤ 10× that of max |ref|);
// non-finite outputs must be where the reference's are, with its sign. The test checks that
// the vec4-store, split and reduction kernels were reached.
func TestGemmOptions(t *testing.T) {
	b := open(t)
	r := rand.New(rand.NewPCG(11, 12))
	vs := optionVariants(b)
	if len(vs) == 0 {
		t.Skipf("no Linear variant with options fits %s", b.Info().Name)
	}
	ref := b.Variants(FamilyLinear)[0]
	for _, v := range vs {
		cfg, _ := parseGemm(v)
		t.Run(v, func(t *testing.T) {
			if err := b.SetVariant(FamilyLinear, v); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = b.SetVariant(FamilyLinear, ref) })
			shapes := [][3]int{{64, 9216, 128}, {130, 600, 136}, {37, 1030, 70}, {70, 520, 72}}
			if cfg.sk > 1 {
				// a few rows: the small-M tile, split (other variants share its unsplit form,
				// which TestGemmForms runs)
				shapes = append(shapes, [3]int{3, 9216, 300})
			}
			for _, s := range shapes {
				for _, bf16 := range []bool{false, true} {
					linearCase(t, b, r, s[0], s[1], s[2], bf16, 0)
				}
			}
			b.SetDispatchFLOPs(1)
			linearCase(t, b, r, 130, 600, 136, true, 1)
			b.SetDispatchFLOPs(0)
			linearAddCase(t, b, r, 37, 1030, 72)
			linearNonFinite(t, b, r, 9, 9216, 72)
			want := []string{"/y4"}
			if cfg.sk > 1 {
				want = append(want, "/split")
			}
			for _, w := range want {
				if !hasPipe(b, "linear/"+v+"/", w) {
					t.Errorf("no %s form of %s was compiled", w, v)
				}
			}
			if cfg.sk > 1 && !hasPipe(b, splitReduce.name+"/", "") {
				t.Error("the split slices' reduction never ran")
			}
		})
	}
}

// linearAddCase checks LinearAdd (y += s·x·wᵀ) with a bf16 weight against float64.
func linearAddCase(t *testing.T, b *Backend, r *rand.Rand, rows, in, out int) {
	t.Helper()
	label := fmt.Sprintf("LinearAdd %dx%d→%d", rows, in, out)
	const s = -0.75
	xh, y0 := randF32(r, rows*in, 1), randF32(r, rows*out, 1)
	w, wide := weightT(t, b, r, out, in, true)
	x, _ := gpu.FromHost(b, xh, rows, in)
	y, _ := gpu.FromHost(b, y0, rows, out)
	b.LinearAdd(y, x, w, rows, s)
	got, err := gpu.ToHost(b, y)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	want := make([]float64, rows*out)
	for i := range rows {
		for o := range out {
			var acc float64
			for k := range in {
				acc += float64(xh[i*in+k]) * wide[o*in+k]
			}
			want[i*out+o] = float64(y0[i*out+o]) + s*acc
		}
	}
	checkClose(t, label, got, want, in)
	for _, x := range []gpu.Tensor{w, x, y} {
		b.Free(x)
	}
}

// linearNonFinite checks that NaN and ±Inf propagate through Linear (bias added): NaN in a
// row of x, +Inf and −Inf in two others, NaN in one weight row; every other output finite
// and within tolerance.
func linearNonFinite(t *testing.T, b *Backend, r *rand.Rand, rows, in, out int) {
	t.Helper()
	label := fmt.Sprintf("Linear %dx%d→%d with NaN and Inf", rows, in, out)
	xh := randF32(r, rows*in, 1)
	xh[1*in+5] = float32(math.NaN())
	xh[2*in+in-1] = float32(math.Inf(1))
	xh[4*in+in/2] = float32(math.Inf(-1))
	wh := randF32(r, out*in, 1/math.Sqrt(float64(in)))
	wh[3*in+7] = float32(math.NaN())
	bh := randF32(r, out, 1)
	w, err := b.WeightF32(wh, out, in)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := gpu.FromHost(b, xh, rows, in)
	bias, _ := gpu.FromHost(b, bh)
	y, _ := gpu.FromHost(b, refmath.NaNs(rows*out), rows, out)
	b.Linear(y, x, w, bias, rows)
	got, err := gpu.ToHost(b, y)
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	want := make([]float64, rows*out)
	var fg []float32
	var fw []float64
	nonFinite := 0
	for i := range rows {
		for o := range out {
			s := float64(bh[o])
			for k := range in {
				s += float64(xh[i*in+k]) * float64(wh[o*in+k])
			}
			want[i*out+o] = s
			g := got[i*out+o]
			switch {
			case math.IsNaN(s):
				nonFinite++
				if !math.IsNaN(float64(g)) {
					t.Errorf("%s: element (%d, %d) = %v, want NaN", label, i, o, g)
				}
			case math.IsInf(s, 0):
				nonFinite++
				if float64(g) != s {
					t.Errorf("%s: element (%d, %d) = %v, want %v", label, i, o, g, s)
				}
			default:
				fg, fw = append(fg, g), append(fw, s)
			}
		}
	}
	if nonFinite < 3*out {
		t.Fatalf("%s: only %d non-finite outputs in the reference", label, nonFinite)
	}
	checkClose(t, label+" (finite outputs)", fg, fw, in)
	for _, x := range []gpu.Tensor{w, x, bias, y} {
		b.Free(x)
	}
}

// TestSplitSlices checks the K slices of split products: within the variant's count, at
// least minSliceK deep (no split below 2·minSliceK), whole K steps, covering K with no empty
// slice, and fewer slices when the partial sums exceed the budget.
func TestSplitSlices(t *testing.T) {
	cfg := gemmCfg{tm: 128, tn: 128, rm: 8, rn: 8, kt: 16, vec: 4, s4: true, o4: true, sk: 4}
	for _, c := range []struct {
		k, outputs int
		budget     uint64
		want       int
	}{
		{9216, 768 * 3072, 256 << 20, 4},
		{9216, 768 * 3072, 3 * 768 * 3072 * 4, 3},
		{9216, 768 * 3072, 768 * 3072 * 4, 1},
		{600, 100, 1 << 20, 2},
		{511, 100, 1 << 20, 1},
		{3072, 100, 1 << 20, 4},
		{1030, 100, 1 << 20, 4},
	} {
		s, ks := splitSlices(cfg, c.k, c.outputs, c.budget)
		if s != c.want {
			t.Errorf("k=%d outputs=%d budget=%d: %d slices, want %d", c.k, c.outputs, c.budget, s, c.want)
		}
		if s == 1 {
			if ks != c.k {
				t.Errorf("k=%d: one slice of %d", c.k, ks)
			}
			continue
		}
		if ks%cfg.kt != 0 || ks < minSliceK || s*ks < c.k || (s-1)*ks >= c.k {
			t.Errorf("k=%d: %d slices of %d", c.k, s, ks)
		}
	}
}

// TestLinearCandidates: split-K variants are tuning candidates of the deep class only; every
// class keeps the reference first; each option (vec4 stores, warps, double buffers, split K)
// is a candidate somewhere.
func TestLinearCandidates(t *testing.T) {
	var names []string
	for _, v := range familyVariants(FamilyLinear) {
		names = append(names, v.name)
	}
	seen := map[string]bool{}
	for _, class := range []string{FamilyLinear, cacheLinearLarge, cacheLinearDeep} {
		cands := linearCandidates(class, names)
		if len(cands) == 0 || cands[0] != names[0] {
			t.Fatalf("%s: candidates %v do not start with the reference %s", class, cands, names[0])
		}
		for _, v := range cands {
			split := strings.Contains(v, "-sk")
			if split && class != cacheLinearDeep {
				t.Errorf("%s: split-K variant %s is a candidate", class, v)
			}
			for _, o := range []string{"-o4", "-db", "-w", "-sk"} {
				if strings.Contains(v, o) {
					seen[o] = true
				}
			}
		}
	}
	for _, o := range []string{"-o4", "-db", "-w", "-sk"} {
		if !seen[o] {
			t.Errorf("no variant with option %s is a tuning candidate", o)
		}
	}
	if got := len(linearCandidates(cacheLinearDeep, names)); got != len(names) {
		t.Errorf("deep class: %d candidates of %d variants", got, len(names))
	}
}

// TestGemmOptionNames: every option round-trips through its name; invalid combinations
// (options without s4, a warp grid that is not 32-thread warps, a split of one slice) are
// refused.
func TestGemmOptionNames(t *testing.T) {
	for _, v := range familyVariants(FamilyLinear) {
		if v.gemm == nil {
			continue
		}
		c, ok := parseGemm(v.name)
		if !ok || c != *v.gemm {
			t.Errorf("%s parses to %+v, %v; want %+v", v.name, c, ok, *v.gemm)
		}
	}
	for _, bad := range []string{
		"t128x128-r8x8-k16-v4-wg256-o4",          // o4 without s4
		"t128x128-r8x8-k16-v4-wg256-s4-w2x2",     // 4 warps for 256 threads
		"t128x128-r8x8-k16-v4-wg256-s4-w16x1",    // 16 warps for 256 threads
		"t128x128-r8x8-k16-v4-wg256-s4-sk1",      // one slice
		"t128x128-r8x8-k16-v4-wg256-s4-o4-xx",    // unknown option
		"t128x128-r8x8-k16-v4-wg256-s4-sk4-o4",   // options out of order
		"t128x128-r8x8-k16-v4-wg256-s4-o4-sk17",  // too many slices
		"t128x128-r8x16-k16-v4-wg128-s4-o4-w2x1", // 2 warps for 128 threads
		"t128x128-r8x8-k16-v4-wg256-s4-w0x8",     // no warp rows
	} {
		if c, ok := parseGemm(bad); ok {
			t.Errorf("parseGemm(%q) accepted %+v", bad, c)
		}
	}
}

// TestWarpTileCoverage checks the warp tiles' thread mapping as generated: every output of a
// workgroup tile belongs to exactly one thread (rows from ty, columns from tx, as threadIndex,
// outRow and outCol compute them).
func TestWarpTileCoverage(t *testing.T) {
	for _, v := range familyVariants(FamilyLinear) {
		c := v.gemm
		if c == nil || c.wy == 0 {
			continue
		}
		hits := make([]int, c.tm*c.tn)
		lx := c.colStride()
		for li := range c.wg() {
			warp, lane := li/32, li%32
			tx := (warp%c.wx)*(c.tn/c.wx/4) + lane%lx
			ty := (warp/c.wx)*(c.tm/c.wy/4) + lane/lx
			for i := range c.rm {
				row := ty*4 + i%4 + (i/4)*4*c.rowStride()
				for j := range c.rn {
					col := tx*4 + j%4 + (j/4)*4*c.colStride()
					if row >= c.tm || col >= c.tn {
						t.Fatalf("%s: thread %d output (%d, %d) outside the tile", v.name, li, row, col)
					}
					hits[row*c.tn+col]++
				}
			}
		}
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("%s: output (%d, %d) computed %d times", v.name, i/c.tn, i%c.tn, h)
			}
		}
		src := gemmSource(gemmKey{cfg: *c, aKind: opF32, aVec: 4, bKind: opF32, bVec: 4, yVec: 4})
		for _, want := range []string{fmt.Sprintf("let tx = (warp %% %du) * %du + lane %% %du;", c.wx, c.tn/c.wx/4, lx),
			fmt.Sprintf("let ty = (warp / %du) * %du + lane / %du;", c.wx, c.tm/c.wy/4, lx)} {
			if !strings.Contains(src, want) {
				t.Errorf("%s: the source lacks %q", v.name, want)
			}
		}
	}
}

// TestLinearSourceHashChanged: the Linear variants of this change are part of the tuning
// cache key, so a cache written for the variant list without them is not applied (its hash
// differs), while Conv2D's kernels, unchanged, keep their key.
func TestLinearSourceHashChanged(t *testing.T) {
	var oldNames []string
	var oldSrc []string
	for _, v := range familyVariants(FamilyLinear) {
		if v.gemm != nil && v.gemm.optionsName() != "" {
			continue
		}
		oldNames = append(oldNames, v.name)
		oldSrc = append(oldSrc, variantSources(FamilyLinear, v)...)
	}
	if sourceHash(FamilyLinear, oldNames, digestTexts(oldSrc)) == SourceHash(FamilyLinear) {
		t.Error("the Linear variants with options leave the tuning cache key unchanged")
	}
	for _, v := range familyVariants(FamilyConv) {
		if v.gemm != nil && v.gemm.optionsName() != "" {
			t.Errorf("Conv2D variant %s has options (their forms are Linear's only)", v.name)
		}
	}
}
