//go:build cgo

package webgpu

import (
	"context"
	"time"
)

// Linear's best variant depends on the rows: the 256² product has 768 rows, 512² 1536 and
// 1024² 4608. Tuning on the model's shapes times FamilyLinear on 1536 rows and, separately,
// the large class on 4608 rows (LargeLinearWorkload) and the deep class on the 256² MLP
// down-projection (DeepLinearWorkload: 768 rows, K = 9216, few output tiles for a large
// GPU); a Linear of at least linearLargeRows rows runs the large class's choice, a smaller
// one of depth linearDeepK or more the deep class's. Split-K variants are candidates of the
// deep class only (linearCandidates): elsewhere the output tiles fill the GPU.
const (
	linearLargeRows = 3072
	linearDeepK     = 6144
	// cacheLinearLarge and cacheLinearDeep are the classes' keys among a TuneCache's Families.
	cacheLinearLarge = FamilyLinear + "@large"
	cacheLinearDeep  = FamilyLinear + "@deep"
)

// LargeLinearWorkload is the large class's Linear at the model's shapes divided by d: the
// 1024² product's MLP input projection (4608 rows, 3072 → 9216).
func LargeLinearWorkload(d int) Workload {
	d = max(d, 1)
	return LinearWorkload(max(4608/d, 1), max(3072/d, 1), max(9216/d, 1), true)
}

// DeepLinearWorkload is the deep class's Linear at the model's shapes divided by d: the 256²
// product's MLP down-projection (768 rows, 9216 → 3072).
func DeepLinearWorkload(d int) Workload {
	d = max(d, 1)
	return LinearWorkload(max(768/d, 1), max(9216/d, 1), max(3072/d, 1), true)
}

// linearVariant is the variant a Linear of rows rows of depth k runs (b.mu held), unless the
// family was forced: the large class's tuned choice from linearLargeRows rows, the deep
// class's below that from depth linearDeepK, else FamilyLinear's.
func (b *Backend) linearVariant(rows, k int) string {
	if !b.forced[FamilyLinear] {
		if rows >= linearLargeRows && b.linearLarge != "" {
			return b.linearLarge
		}
		if rows < linearLargeRows && k >= linearDeepK && b.linearDeep != "" {
			return b.linearDeep
		}
	}
	return b.Variant(FamilyLinear)
}

// linearCandidates are the variants of names (the adapter's, reference first) tuning times
// for Linear class class (FamilyLinear, cacheLinearLarge or cacheLinearDeep): split-K
// variants for the deep class only.
func linearCandidates(class string, names []string) []string {
	if class == cacheLinearDeep {
		return names
	}
	var out []string
	for _, n := range names {
		if s := specOf(FamilyLinear, n).gemm; s == nil || s.sk <= 1 {
			out = append(out, n)
		}
	}
	return out
}

// setLinearLarge sets the large class's variant ("" runs FamilyLinear's); one the adapter
// cannot run is ignored.
func (b *Backend) setLinearLarge(v string) { b.setLinearClass(cacheLinearLarge, v) }

// setLinearClass sets class's variant (cacheLinearLarge or cacheLinearDeep; "" runs
// FamilyLinear's); one the adapter cannot run is ignored.
func (b *Backend) setLinearClass(class, v string) {
	if v != "" && !contains(b.Variants(FamilyLinear), v) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if class == cacheLinearDeep {
		b.linearDeep = v
	} else {
		b.linearLarge = v
	}
}

// applyLinearClasses takes the classes' choices from c when they were tuned on these kernels.
func (b *Backend) applyLinearClasses(c *TuneCache) {
	for _, class := range []string{cacheLinearLarge, cacheLinearDeep} {
		if e, ok := c.Families[class]; ok && e.Hash == SourceHash(FamilyLinear) {
			b.setLinearClass(class, e.Variant)
		}
	}
}

// tuneLinearLarge tunes the large class on w (tuneLinearClass).
func (b *Backend) tuneLinearLarge(ctx context.Context, w Workload, cands []string, cache *TuneCache, res *TuneResult,
	progress func(string), reps int, share time.Duration, start time.Time, budget time.Duration) error {
	return b.tuneLinearClass(ctx, cacheLinearLarge, w, cands, cache, res, progress, reps, share, start, budget)
}

// tuneLinearClass times cands on class's workload w, checks the fastest against the
// reference cands[0] as pickVariant does, sets it and records it in cache and res.
func (b *Backend) tuneLinearClass(ctx context.Context, class string, w Workload, cands []string, cache *TuneCache, res *TuneResult,
	progress func(string), reps int, share time.Duration, start time.Time, budget time.Duration) error {
	b.setLinearClass(class, "") // the class's earlier choice would run in place of each candidate
	secs, note, err := b.timeFamily(ctx, w, FamilyLinear, cands, progress, reps, share, start, budget)
	if err != nil {
		return err
	}
	ft := FamilyTuning{Family: class, Seconds: secs, Note: note, Shape: w.Name}
	prev := b.Variant(FamilyLinear)
	best, err := b.pickVariant(w, FamilyLinear, cands, secs, &ft)
	b.setVariantQuiet(FamilyLinear, prev) // pickVariant set the family's: the class is separate
	if err != nil {
		return err
	}
	if secs[best] > 0 {
		ft.GFLOPS = w.FLOPs / secs[best] / 1e9
	}
	b.setLinearClass(class, best)
	cache.Families[class] = CachedFamily{Hash: SourceHash(FamilyLinear), Variant: best, Seconds: secs}
	res.Families = append(res.Families, ft)
	return nil
}
