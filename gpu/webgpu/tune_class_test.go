//go:build cgo

package webgpu

import (
	"context"
	"testing"
	"time"

	"kleinbild/gpu"
)

// TestLinearClasses: Linears of linearLargeRows rows or more run the large class's variant,
// smaller ones FamilyLinear's; a forced family overrides both; an unknown variant is
// ignored; tuning the class records it in the cache and a backend opened with the cache
// runs it; its output matches the reference variant's.
func TestLinearClasses(t *testing.T) {
	dir := t.TempDir()
	b := openWith(t, Options{Adapter: -1, CacheDir: dir})
	vs := b.Variants(FamilyLinear)
	if len(vs) < 2 {
		t.Skipf("one Linear variant on %s", b.Info().Name)
	}
	small := b.Variant(FamilyLinear)
	if b.linearVariant(4608, 3072) != small {
		t.Errorf("untuned large class runs %q, want %q", b.linearVariant(4608, 3072), small)
	}
	// Tune the class on a small stand-in for the 4608-row product.
	w := LinearWorkload(linearLargeRows, 16, 24, true)
	cache := &TuneCache{Version: tuneCacheVersion, Adapter: cacheKey(b.detail.key, b.defLim), Families: map[string]CachedFamily{}}
	res := &TuneResult{}
	if err := b.tuneLinearLarge(context.Background(), w, vs, cache, res, func(string) {}, 2, time.Second, time.Now(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	got := cache.Families[cacheLinearLarge]
	if len(res.Families) != 1 || res.Families[0].Variant != got.Variant || got.Hash != SourceHash(FamilyLinear) || res.Families[0].GFLOPS <= 0 {
		t.Fatalf("class result %+v, cache %+v", res.Families, got)
	}
	if b.Variant(FamilyLinear) != small {
		t.Errorf("tuning the class changed FamilyLinear's variant to %q", b.Variant(FamilyLinear))
	}
	// Force a class choice other than the small one, and check the rows decide.
	other := vs[1]
	if other == small {
		other = vs[0]
	}
	b.setLinearLarge(other)
	b.setLinearLarge("no-such-variant")
	if b.linearVariant(linearLargeRows, 3072) != other || b.linearVariant(768, 3072) != small || b.linearVariant(linearLargeRows-1, 3072) != small {
		t.Errorf("large %q, 768 rows %q; want %q and %q", b.linearVariant(linearLargeRows, 3072), b.linearVariant(768, 3072), other, small)
	}
	p, err := w.Prepare(b)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	withClass, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	b.setLinearLarge("")
	ref, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	if d := relL2(withClass, ref); d > 1e-5 {
		t.Errorf("large class %s differs from %s by rel-L2 %g", other, small, d)
	}
	b.forced = map[string]bool{FamilyLinear: true}
	b.linearLarge = other
	if b.linearVariant(4608, 3072) != small {
		t.Error("a forced Linear variant does not hold for the large class")
	}
	// Round trip through the cache file.
	cache.Families[cacheLinearLarge] = CachedFamily{Hash: SourceHash(FamilyLinear), Variant: other}
	if err := saveTuneCache(dir, cache); err != nil {
		t.Fatal(err)
	}
	b2 := openWith(t, Options{Adapter: -1, CacheDir: dir, Tuned: true})
	if b2.linearLarge != other {
		t.Errorf("reopened with the cache: large class %q, want %q", b2.linearLarge, other)
	}
}

// TestBatchRuns: a run shorter than minBatch is timed in a batch lasting about minBatch.
func TestBatchRuns(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{{30 * time.Millisecond, 1}, {minBatch, 1}, {time.Millisecond, 21}, {100 * time.Microsecond, 201}, {time.Nanosecond, maxBatchRuns}} {
		if got := batchRuns(c.d); got != c.want {
			t.Errorf("batchRuns(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

// TestFitWorkloadsDiscrete: a discrete GPU tunes at the model's real shapes whatever the
// budget (no launch-bound probe decides).
func TestFitWorkloadsDiscrete(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	b.info.Kind = gpu.KindDiscrete
	if _, scale, err := b.fitWorkloads(context.Background(), time.Nanosecond); err != nil || scale != 1 {
		t.Errorf("discrete: scale %d (%v), want 1", scale, err)
	}
}
