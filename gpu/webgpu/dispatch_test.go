//go:build cgo

package webgpu

import (
	"math"
	"testing"

	"kleinbild/gpu"
)

// The model's shapes at 1792² (klein-4B: 12,544 image and 512 text tokens, hidden 3072, 24
// heads of 128, MLP 9216; the VAE's 224² latent and its 1792² output).
const (
	tokens1792  = 13056
	vaeTokens   = 224 * 224
	vaePixels   = 1792 * 1792
	vaeTokens1k = 128 * 128
)

// attnDispatches is the dispatches of the reference flash kernel of family over p under d, the
// fewest workgroups of one of them but the last (of the only one when there is one) and the
// most FLOPs of one.
func attnDispatches(t *testing.T, family string, p gpu.AttnParams, d dispatchBound) (n, minGroups int, maxFLOPs float64) {
	t.Helper()
	f := flashVariants(family)[0]
	step := queriesPerDispatch(p, p.SeqK, f.bq, d)
	if step%f.bq != 0 || step < f.bq {
		t.Fatalf("%d queries per dispatch: not whole blocks of %d", step, f.bq)
	}
	minGroups = math.MaxInt
	for q0 := 0; q0 < p.SeqQ; q0 += step {
		n++
		q := min(step, p.SeqQ-q0)
		if q0+step < p.SeqQ || n == 1 {
			minGroups = min(minGroups, (q+f.bq-1)/f.bq*p.Heads)
		}
		maxFLOPs = max(maxFLOPs, 4*float64(q)*float64(p.SeqK)*float64(p.HeadDim)*float64(p.Heads))
	}
	return n, minGroups, maxFLOPs
}

// gemmDispatches is the dispatches of the reference tile over an m×n×k product, and the
// fewest workgroups of a range but the last (of the only one when there is one).
func gemmDispatches(m, n, k int, d dispatchBound, splitCols bool) (count, minGroups int) {
	cfg, _ := parseGemm(linearVariants()[0].name)
	blocks := gemmBlocks(cfg, m, n, k, d, defaultWorkgroupsPerDim, splitCols)
	groups := map[int]int{} // per range of the split dimension (by its start): workgroups
	last := 0
	for _, bl := range blocks {
		r := bl.m0
		if splitCols {
			r = bl.n0
		}
		last = max(last, r)
		groups[r] += ((bl.m1 - bl.m0 + cfg.tm - 1) / cfg.tm) * ((bl.n1 - bl.n0 + cfg.tn - 1) / cfg.tn)
	}
	minGroups = math.MaxInt
	for r, g := range groups {
		if r != last || len(groups) == 1 {
			minGroups = min(minGroups, g)
		}
	}
	return len(blocks), minGroups
}

// TestDispatchCountsUntunedDiscrete: an untuned discrete GPU at 1792² runs each attention call,
// Linear and VAE op in a few dispatches of at least the floor of workgroups (the old bound of
// 100 GFLOP/s made 408 dispatches of 24 workgroups of one attention call at 13,056 tokens,
// and about 100 of each down-projection), and no dispatch holds more than floorCap times
// the work the assumed rate allows in DispatchSeconds.
func TestDispatchCountsUntunedDiscrete(t *testing.T) {
	kind := gpu.KindDiscrete
	var untuned deviceRates
	floor := minDispatchGroups(kind)
	if floor < 256 {
		t.Fatalf("discrete floor %d workgroups: too few for a large GPU", floor)
	}

	attn := []struct {
		name   string
		family string
		p      gpu.AttnParams
		most   int
	}{
		{"klein 13,056 tokens", FamilyAttention, gpu.AttnParams{SeqQ: tokens1792, SeqK: tokens1792, Heads: 24, KVHeads: 24, HeadDim: 128}, 16},
		{"VAE 1024² (16,384 tokens)", FamilyAttention512, gpu.AttnParams{SeqQ: vaeTokens1k, SeqK: vaeTokens1k, Heads: 1, KVHeads: 1, HeadDim: 512}, 2},
		{"VAE 1792² (50,176 tokens)", FamilyAttention512, gpu.AttnParams{SeqQ: vaeTokens, SeqK: vaeTokens, Heads: 1, KVHeads: 1, HeadDim: 512}, 16},
	}
	for _, c := range attn {
		d := untuned.bound(kind, c.family)
		n, groups, most := attnDispatches(t, c.family, c.p, d)
		t.Logf("attention %s: %d dispatches, ≥ %d workgroups, ≤ %.3g FLOPs each", c.name, n, groups, most)
		if n > c.most {
			t.Errorf("attention %s: %d dispatches, want at most %d", c.name, n, c.most)
		}
		if n > 1 && groups < floor && most < floorCap*d.flops*0.99 {
			t.Errorf("attention %s: a dispatch of %d workgroups, under the floor %d", c.name, groups, floor)
		}
		if most > floorCap*d.flops {
			t.Errorf("attention %s: a dispatch of %.3g FLOPs, over %d× the bound %.3g", c.name, most, floorCap, d.flops)
		}
		// The old bound: 1e10 FLOPs per dispatch, no floor.
		if c.family == FamilyAttention {
			old, _, _ := attnDispatches(t, c.family, c.p, dispatchBound{flops: 100e9 * DispatchSeconds})
			if old != 408 {
				t.Errorf("attention %s under the old bound: %d dispatches, the issue measured 408", c.name, old)
			}
		}
	}

	lin := []struct {
		name    string
		m, n, k int
		most    int
	}{
		{"MLP in 13,056×3072→9216", tokens1792, 9216, 3072, 3},
		{"down 13,056×9216→3072", tokens1792, 3072, 9216, 3},
		{"attention out 13,056×3072→3072", tokens1792, 3072, 3072, 1},
		{"fused QKV+MLP 12,544×3072→27,648", 12544, 27648, 3072, 8},
		{"down 768×9216→3072 (256²)", 768, 3072, 9216, 1},
	}
	for _, c := range lin {
		d := untuned.bound(kind, FamilyLinear)
		n, groups := gemmDispatches(c.m, c.n, c.k, d, false)
		t.Logf("linear %s: %d dispatches, ≥ %d workgroups", c.name, n, groups)
		if n > c.most {
			t.Errorf("linear %s: %d dispatches, want at most %d", c.name, n, c.most)
		}
		if n > 1 && groups < floor {
			t.Errorf("linear %s: a dispatch of %d workgroups, under the floor %d", c.name, groups, floor)
		}
	}
	if old, _ := gemmDispatches(tokens1792, 3072, 9216, dispatchBound{flops: 100e9 * DispatchSeconds}, false); old < 90 {
		t.Errorf("down-projection under the old bound: %d dispatches, the issue counted about 100", old)
	}

	// The VAE's convolutions at 1792²: a 3×3 of 128 channels at full size, of 512 at 224².
	for _, c := range []struct {
		name       string
		outC, k, n int
		most       int
	}{
		{"3×3 128→128 at 1792²", 128, 128 * 9, vaePixels, 3},
		{"3×3 512→512 at 224²", 512, 512 * 9, vaeTokens, 2},
	} {
		d := untuned.bound(kind, FamilyConv)
		n, groups := gemmDispatches(c.outC, c.n, c.k, d, true)
		t.Logf("conv %s: %d dispatches, ≥ %d workgroups", c.name, n, groups)
		if n > c.most {
			t.Errorf("conv %s: %d dispatches, want at most %d", c.name, n, c.most)
		}
		if n > 1 && groups < floor {
			t.Errorf("conv %s: a dispatch of %d workgroups, under the floor %d", c.name, groups, floor)
		}
	}
}

// TestDispatchRates: the rate sizing a family's dispatches is its measured one, else the
// products' measured one, else the FMA probe's share, else the kind's default; attention
// takes its own measured rate; a software adapter has no floor and the old 100 GFLOP/s.
func TestDispatchRates(t *testing.T) {
	for _, c := range []struct {
		kind   gpu.DeviceKind
		r      deviceRates
		family string
		want   float64
	}{
		{gpu.KindSoftware, deviceRates{}, FamilyLinear, unmeasuredGFLOPS},
		{gpu.KindSoftware, deviceRates{}, FamilyAttention, unmeasuredGFLOPS * attentionShare},
		{gpu.KindDiscrete, deviceRates{}, FamilyLinear, discreteGFLOPS},
		{gpu.KindDiscrete, deviceRates{}, FamilyConv, discreteGFLOPS},
		{gpu.KindIntegrated, deviceRates{}, FamilyLinear, integratedGFLOPS},
		{gpu.KindDiscrete, deviceRates{fma: 52700}, FamilyLinear, 52700 * fmaShare},
		{gpu.KindDiscrete, deviceRates{fma: 52700, linear: 17700}, FamilyLinear, 17700},
		{gpu.KindDiscrete, deviceRates{fma: 52700, linear: 17700}, FamilyAttention, 17700 * attentionShare},
		{gpu.KindDiscrete, deviceRates{linear: 17700, attention: 9000}, FamilyAttention, 9000},
		{gpu.KindDiscrete, deviceRates{linear: 17700, attention: 9000}, FamilyAttention512, 17700 * attentionShare},
		{gpu.KindDiscrete, deviceRates{linear: 17700, attention512: 12800}, FamilyAttention512, 12800},
	} {
		if got := c.r.gflops(c.kind, c.family); got != c.want {
			t.Errorf("%s %+v %s: %g GFLOP/s, want %g", c.kind, c.r, c.family, got, c.want)
		}
	}
	if f := minDispatchGroups(gpu.KindSoftware); f != 0 {
		t.Errorf("software floor %d, want none", f)
	}
	for _, c := range []struct {
		kind gpu.DeviceKind
		r    deviceRates
		want bool
	}{
		{gpu.KindDiscrete, deviceRates{}, true},
		{gpu.KindIntegrated, deviceRates{}, true},
		{gpu.KindSoftware, deviceRates{}, false},
		{gpu.KindDiscrete, deviceRates{linear: 1}, false},
		{gpu.KindDiscrete, deviceRates{fma: 1}, false},
	} {
		if got := needsProbe(c.kind, c.r); got != c.want {
			t.Errorf("needsProbe(%s, %+v) = %v", c.kind, c.r, got)
		}
	}
}

// TestDispatchUnits: the floor raises a dispatch to minGroups workgroups, but never past
// floorCap times the FLOP bound; without a floor the bound alone counts.
func TestDispatchUnits(t *testing.T) {
	for _, c := range []struct {
		d                      dispatchBound
		perUnit                float64
		step, groupsPerStep, w int
	}{
		{dispatchBound{flops: 1000}, 10, 4, 1, 100},                    // bound: 100 units
		{dispatchBound{flops: 1000}, 1000, 4, 1, 4},                    // at least one step
		{dispatchBound{flops: 1000, minGroups: 64}, 10, 4, 1, 256},     // floor: 64 steps, within 4×
		{dispatchBound{flops: 1000, minGroups: 1000}, 10, 4, 1, 400},   // floor capped at 4× the bound
		{dispatchBound{flops: 1000, minGroups: 64}, 10, 4, 32, 100},    // the bound already has 25·32 groups
		{dispatchBound{flops: 1000, minGroups: 64}, 10, 4, 0, 100},     // no groups per step: no floor
		{dispatchBound{flops: 0, minGroups: 64}, 10, 4, 1, 4},          // a zero bound: one step
		{dispatchBound{flops: 1e300, minGroups: 64}, 1, 4, 1, 4 << 30}, // huge bounds stay an int
	} {
		if got := c.d.units(c.perUnit, c.step, c.groupsPerStep); got != c.w {
			t.Errorf("%+v.units(%g, %d, %d) = %d, want %d", c.d, c.perUnit, c.step, c.groupsPerStep, got, c.w)
		}
	}
}
