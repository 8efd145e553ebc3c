//go:build cgo

package webgpu

import (
	"context"
	"time"
)

// Linear's best variant depends on the rows: the 256² product has 768 rows, 512² 1536 and
// 1024² 4608. Tuning on the model's shapes times FamilyLinear on 1536 rows and, separately,
// the large class on 4608 rows (LargeLinearWorkload); a Linear of at least linearLargeRows
// rows runs the large class's choice.
const (
	linearLargeRows = 3072
	// cacheLinearLarge is the large class's key among a TuneCache's Families.
	cacheLinearLarge = FamilyLinear + "@large"
)

// LargeLinearWorkload is the large class's Linear at the model's shapes divided by d: the
// 1024² product's MLP input projection (4608 rows, 3072 → 9216).
func LargeLinearWorkload(d int) Workload {
	d = max(d, 1)
	return LinearWorkload(max(4608/d, 1), max(3072/d, 1), max(9216/d, 1), true)
}

// linearVariant is the variant a Linear of rows rows runs (b.mu held): the large class's
// tuned choice from linearLargeRows rows unless the family was forced, else FamilyLinear's.
func (b *Backend) linearVariant(rows int) string {
	if rows >= linearLargeRows && b.linearLarge != "" && !b.forced[FamilyLinear] {
		return b.linearLarge
	}
	return b.Variant(FamilyLinear)
}

// setLinearLarge sets the large class's variant ("" runs FamilyLinear's); one the adapter
// cannot run is ignored.
func (b *Backend) setLinearLarge(v string) {
	if v != "" && !contains(b.Variants(FamilyLinear), v) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.linearLarge = v
}

// applyLinearLarge takes the large class's choice from c when it was tuned on these kernels.
func (b *Backend) applyLinearLarge(c *TuneCache) {
	if e, ok := c.Families[cacheLinearLarge]; ok && e.Hash == SourceHash(FamilyLinear) {
		b.setLinearLarge(e.Variant)
	}
}

// tuneLinearLarge times cands on the large class's workload w, checks the fastest against
// the reference cands[0] as pickVariant does, sets it and records it in cache and res.
func (b *Backend) tuneLinearLarge(ctx context.Context, w Workload, cands []string, cache *TuneCache, res *TuneResult,
	progress func(string), reps int, share time.Duration, start time.Time, budget time.Duration) error {
	secs, note, err := b.timeFamily(ctx, w, FamilyLinear, cands, progress, reps, share, start, budget)
	if err != nil {
		return err
	}
	ft := FamilyTuning{Family: cacheLinearLarge, Seconds: secs, Note: note, Shape: w.Name}
	prev := b.Variant(FamilyLinear)
	best, err := b.pickVariant(w, FamilyLinear, cands, secs, &ft)
	b.setVariantQuiet(FamilyLinear, prev) // pickVariant set the family's: the class is separate
	if err != nil {
		return err
	}
	if secs[best] > 0 {
		ft.GFLOPS = w.FLOPs / secs[best] / 1e9
	}
	b.setLinearLarge(best)
	cache.Families[cacheLinearLarge] = CachedFamily{Hash: SourceHash(FamilyLinear), Variant: best, Seconds: secs}
	res.Families = append(res.Families, ft)
	return nil
}
