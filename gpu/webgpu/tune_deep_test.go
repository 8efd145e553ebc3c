//go:build cgo

package webgpu

import (
	"context"
	"strings"
	"testing"
	"time"
)

// firstSplit is the first split-K variant the backend can run ("" for none).
func firstSplit(b *Backend) string {
	for _, v := range b.Variants(FamilyLinear) {
		if c := specOf(FamilyLinear, v).gemm; c != nil && c.sk > 1 {
			return v
		}
	}
	return ""
}

// TestLinearDeepClass: Linears below linearLargeRows rows of depth linearDeepK or more run
// the deep class's variant, others FamilyLinear's (or the large class's); tuning the class
// times a split-K variant with the others and records its choice in the cache; a
// backend opened with the cache runs it, and not a choice recorded for other kernels; a
// forced family overrides it; a split-K choice computes what the reference computes.
func TestLinearDeepClass(t *testing.T) {
	dir := t.TempDir()
	b := openWith(t, Options{Adapter: -1, CacheDir: dir})
	split := firstSplit(b)
	if split == "" {
		t.Skipf("no split-K variant fits %s", b.Info().Name)
	}
	small := b.Variant(FamilyLinear)
	if got := b.linearVariant(768, 9216); got != small {
		t.Errorf("untuned deep class runs %q, want %q", got, small)
	}
	// Tune the class on a small stand-in for 768×9216→3072.
	// (the reference, another variant and a split-K one: TestLinearCandidates checks the list)
	w := LinearWorkload(24, linearDeepK, 40, true)
	all := linearCandidates(cacheLinearDeep, b.Variants(FamilyLinear))
	cands := []string{all[0], all[1], split}
	cache := &TuneCache{Version: tuneCacheVersion, Adapter: cacheKey(b.detail.key, b.defLim), Families: map[string]CachedFamily{}}
	res := &TuneResult{}
	if err := b.tuneLinearClass(context.Background(), cacheLinearDeep, w, cands, cache, res, func(string) {}, 1, time.Second, time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	got := cache.Families[cacheLinearDeep]
	if len(res.Families) != 1 || res.Families[0].Family != cacheLinearDeep || res.Families[0].Variant != got.Variant ||
		got.Hash != SourceHash(FamilyLinear) || res.Families[0].GFLOPS <= 0 {
		t.Fatalf("class result %+v, cache %+v", res.Families, got)
	}
	if _, ok := got.Seconds[split]; !ok {
		t.Errorf("the deep class did not time %s (timed %v)", split, got.Seconds)
	}
	if b.Variant(FamilyLinear) != small {
		t.Errorf("tuning the class changed FamilyLinear's variant to %q", b.Variant(FamilyLinear))
	}
	// The class decides by rows and depth.
	b.setLinearClass(cacheLinearDeep, split)
	b.setLinearClass(cacheLinearDeep, "no-such-variant")
	for _, c := range []struct {
		rows, k int
		want    string
	}{{768, 9216, split}, {1, linearDeepK, split}, {768, linearDeepK - 1, small}, {linearLargeRows, 9216, small}} {
		if got := b.linearVariant(c.rows, c.k); got != c.want {
			t.Errorf("%d rows of depth %d run %q, want %q", c.rows, c.k, got, c.want)
		}
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
	if !hasPipe(b, "linear/"+split+"/", "/split") {
		t.Errorf("the deep class's %s did not run split", split)
	}
	b.setLinearClass(cacheLinearDeep, "")
	ref, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	if d := relL2(withClass, ref); d > 1e-5 {
		t.Errorf("deep class %s differs from %s by rel-L2 %g", split, small, d)
	}
	b.forced = map[string]bool{FamilyLinear: true}
	b.linearDeep = split
	if b.linearVariant(768, 9216) != small {
		t.Error("a forced Linear variant does not hold for the deep class")
	}
	// Round trip through the cache file; an entry of other kernels is not applied.
	cache.Families[cacheLinearDeep] = CachedFamily{Hash: SourceHash(FamilyLinear), Variant: split}
	if err := saveTuneCache(dir, cache); err != nil {
		t.Fatal(err)
	}
	b2 := openWith(t, Options{Adapter: -1, CacheDir: dir, Tuned: true})
	if b2.linearDeep != split {
		t.Errorf("reopened with the cache: deep class %q, want %q", b2.linearDeep, split)
	}
	cache.Families[cacheLinearDeep] = CachedFamily{Hash: "0123456789abcdef", Variant: split}
	if err := saveTuneCache(dir, cache); err != nil {
		t.Fatal(err)
	}
	b3 := openWith(t, Options{Adapter: -1, CacheDir: dir, Tuned: true})
	if b3.linearDeep != "" {
		t.Errorf("a deep class tuned on other kernels was applied: %q", b3.linearDeep)
	}
}

// TestTuneLinearSkipsSplit: tuning FamilyLinear on its workload (rows that fill a GPU's
// tiles) times every variant but the split-K ones, the deep class's alone.
func TestTuneLinearSkipsSplit(t *testing.T) {
	b := openWith(t, Options{Adapter: -1, CacheDir: t.TempDir()})
	if firstSplit(b) == "" {
		t.Skipf("no split-K variant fits %s", b.Info().Name)
	}
	res, err := b.Tune(context.Background(), TuneOptions{Workloads: map[string]Workload{FamilyLinear: LinearWorkload(9, 40, 12, true)},
		Budget: time.Minute, Reps: 1, NoSave: true})
	if err != nil {
		t.Fatal(err)
	}
	ft := res.family(FamilyLinear)
	want := linearCandidates(FamilyLinear, b.Variants(FamilyLinear))
	if len(ft.Seconds) != len(want) {
		t.Errorf("timed %d variants, want the %d candidates %v", len(ft.Seconds), len(want), want)
	}
	for v := range ft.Seconds {
		if strings.Contains(v, "-sk") {
			t.Errorf("FamilyLinear's tuning timed split-K variant %s", v)
		}
	}
}
