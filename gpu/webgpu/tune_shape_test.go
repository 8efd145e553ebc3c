//go:build cgo

package webgpu

import (
	"context"
	"strings"
	"testing"
	"time"
)

// twoGenerated returns two generated (tiled) Linear variants of b other than its default,
// skipping the test when the adapter has fewer.
func twoGenerated(t *testing.T, b *Backend) (string, string) {
	t.Helper()
	var out []string
	for _, v := range b.Variants(FamilyLinear) {
		if c := specOf(FamilyLinear, v).gemm; c != nil && c.sk <= 1 && v != b.Variant(FamilyLinear) {
			out = append(out, v)
		}
	}
	if len(out) < 2 {
		t.Skipf("fewer than two other generated Linear variants on %s", b.Info().Name)
	}
	return out[0], out[1]
}

// TestShapeLookupOrder: a shape record wins over the classes, which win over FamilyLinear's
// variant; a record holds for the rows of its bucket only (257..512 for 512), and for its N
// and K only; a forced family overrides records; an unknown variant is not recorded.
func TestShapeLookupOrder(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	def := b.Variant(FamilyLinear)
	rec, class := twoGenerated(t, b)
	b.setLinearClass(cacheLinearDeep, class)
	b.setLinearShape(keyOf(300, 64, 9216), rec)
	b.setLinearShape(keyOf(300, 64, 9216), "no-such-variant")
	b.mu.Lock()
	for _, c := range []struct {
		rows, n, k int
		want       string
	}{
		{300, 64, 9216, rec}, {257, 64, 9216, rec}, {512, 64, 9216, rec}, // the record's bucket
		{256, 64, 9216, class}, {513, 64, 9216, class}, // neighbouring buckets: the deep class
		{300, 65, 9216, class}, {300, 64, 100, def}, // other N; other K (not deep): the family's
	} {
		if got := b.linearShapeVariant(c.rows, c.n, c.k); got != c.want {
			t.Errorf("%d×%d→%d runs %q, want %q", c.rows, c.k, c.n, got, c.want)
		}
	}
	b.forced = map[string]bool{FamilyLinear: true}
	if got := b.linearShapeVariant(300, 64, 9216); got != def {
		t.Errorf("forced family: the record's %q ran, want %q", got, def)
	}
	b.forced = nil
	b.mu.Unlock()
	b.setLinearShape(keyOf(300, 64, 9216), "")
	b.mu.Lock()
	defer b.mu.Unlock()
	if got := b.linearShapeVariant(300, 64, 9216); got != class {
		t.Errorf("removed record: %q runs, want %q", got, class)
	}
}

// TestShapeDispatch: a Linear whose shape has a record runs the record's variant (its
// pipeline is built, not the default's), computing what the default computes; a Linear of
// another N keeps the default.
func TestShapeDispatch(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	rec, _ := twoGenerated(t, b)
	def := b.Variant(FamilyLinear)
	w := LinearWorkload(40, 72, 24, true)
	p, err := w.Prepare(b)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	ref, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	if hasPipe(b, "linear/"+rec+"/", "") {
		t.Fatalf("%s built before its record", rec)
	}
	b.setLinearShape(keyOf(40, 25, 72), rec) // another N
	if _, err := p.Output(); err != nil {
		t.Fatal(err)
	}
	if hasPipe(b, "linear/"+rec+"/", "") {
		t.Errorf("the record of another N ran %s", rec)
	}
	b.setLinearShape(keyOf(40, 24, 72), rec)
	got, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !hasPipe(b, "linear/"+rec+"/", "") {
		t.Errorf("the record's %s did not run (default %s)", rec, def)
	}
	if d := relL2(got, ref); d > 1e-5 {
		t.Errorf("%s differs from %s by rel-L2 %g", rec, def, d)
	}
}

// TestTuneShapes: Tune times the given shapes, records each winner in the cache and on the
// backend, skips a shape beyond the device's bindings without allocating it; a backend
// opened with the cache runs the records; a second Tune takes them from the cache.
func TestTuneShapes(t *testing.T) {
	dir := t.TempDir()
	b := openWith(t, Options{Adapter: -1, CacheDir: dir})
	vs := b.Variants(FamilyLinear)
	if len(vs) < 2 {
		t.Skipf("one Linear variant on %s", b.Info().Name)
	}
	small := LinearShape{Name: "small", M: 24, N: 40, K: 600}
	huge := LinearShape{Name: "huge", M: 1 << 20, N: 8, K: 1 << 14}
	opts := TuneOptions{Workloads: map[string]Workload{FamilyLinear: LinearWorkload(9, 40, 12, true)},
		Shapes: []LinearShape{small, huge}, Budget: time.Minute, Reps: 1}
	var shapeSteps int
	opts.Progress = func(p TuneProgress) {
		if p.Family == FamilyLinear+"@shape" {
			shapeSteps++
		}
	}
	res, err := b.Tune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Shapes) != 2 {
		t.Fatalf("shape results %+v", res.Shapes)
	}
	st := res.Shapes[0]
	if st.Variant == "" || len(st.Seconds) != len(vs) || shapeSteps != len(vs) || st.GFLOPS <= 0 || st.Bucket != 32 {
		t.Errorf("small shape: %+v after %d steps, want all %d variants timed", st, shapeSteps, len(vs))
	}
	if h := res.Shapes[1]; h.Variant != "" || !strings.Contains(h.Note, "too large") {
		t.Errorf("huge shape: %+v", h)
	}
	key := keyOf(small.M, small.N, small.K)
	b.mu.Lock()
	onB := b.linearShapes[key]
	b.mu.Unlock()
	if onB != st.Variant {
		t.Errorf("backend runs %q for the shape, tuned %q", onB, st.Variant)
	}
	c := readCache(t, b, dir)
	if i := cachedShape(c, key); i < 0 || c.Shapes[i].Variant != st.Variant || c.Shapes[i].Hash != SourceHash(FamilyLinear) || len(c.Shapes) != 1 {
		t.Errorf("cache shapes %+v", c.Shapes)
	}
	b2 := openWith(t, Options{Adapter: -1, CacheDir: dir, Tuned: true})
	b2.mu.Lock()
	got := b2.linearShapeVariant(small.M, small.N, small.K)
	b2.mu.Unlock()
	if got != st.Variant {
		t.Errorf("reopened: the shape runs %q, want %q", got, st.Variant)
	}
	opts.Shapes = []LinearShape{small}
	res2, err := b2.Tune(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Shapes) != 1 || !res2.Shapes[0].Cached || res2.Shapes[0].Variant != st.Variant {
		t.Errorf("second tuning: %+v", res2.Shapes)
	}
}

// TestShapeSkipBudget: a shape whose one run at the device's rate exceeds its share of the
// budget, or that finds no budget left, is not timed.
func TestShapeSkipBudget(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	b.mu.Lock()
	b.rates.linear = 10 // GFLOP/s
	b.mu.Unlock()
	s := LinearShape{M: 4096, N: 3072, K: 3072} // 77 GFLOP: 15 s for warm-up and a run
	if n := b.shapeSkip(s, 10*time.Second); !strings.Contains(n, "exceeds") {
		t.Errorf("slow shape: %q", n)
	}
	if n := b.shapeSkip(s, time.Minute); n != "" {
		t.Errorf("shape within its share: %q", n)
	}
	if n := b.shapeSkip(s, 0); !strings.Contains(n, "budget spent") {
		t.Errorf("no budget: %q", n)
	}
}

// TestPlanShapes: the model's shapes are tuned on real shapes (scale 1) or given sizes,
// not on scaled ones or explicit workloads, nor under a forced Linear.
func TestPlanShapes(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	if p := b.planShapes(TuneOptions{}, 1); p == nil || len(p.shapes) != len(Klein4BDims().Shapes(DefaultShapeSizes())) {
		t.Errorf("scale 1: %+v", p)
	}
	if p := b.planShapes(TuneOptions{}, 8); p != nil {
		t.Errorf("scale 8 without sizes planned %d shapes", len(p.shapes))
	}
	if p := b.planShapes(TuneOptions{Sizes: []int{256}}, 8); p == nil || len(p.shapes) != len(Klein4BDims().Shapes([]int{256})) {
		t.Errorf("--sizes 256 at scale 8: %+v", p)
	}
	if p := b.planShapes(TuneOptions{Workloads: TinyWorkloads()}, 1); p != nil {
		t.Error("explicit workloads planned the model's shapes")
	}
	b.forced = map[string]bool{FamilyLinear: true}
	if p := b.planShapes(TuneOptions{Sizes: []int{256}}, 1); p != nil {
		t.Error("a forced Linear planned shapes")
	}
}

// TestClassTuningTimesCandidates: tuning a class times each candidate even when the class
// already has a choice (a backend opened with its cache, tuned again with --force): the
// earlier choice no longer runs in place of the candidates.
func TestClassTuningTimesCandidates(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	old, cand := twoGenerated(t, b)
	b.setLinearClass(cacheLinearLarge, old)
	cache := &TuneCache{Families: map[string]CachedFamily{}}
	w := LinearWorkload(linearLargeRows, 16, 24, true)
	err := b.tuneLinearClass(context.Background(), cacheLinearLarge, w, []string{b.Variant(FamilyLinear), cand}, cache, &TuneResult{},
		func(string) {}, 1, time.Second, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !hasPipe(b, "linear/"+cand+"/", "") {
		t.Errorf("candidate %s never ran: the class's earlier %s stood in for it", cand, old)
	}
}

// TestSplitPool: split products reuse the backend's one partial-sum buffer: repeated calls
// create no buffer and give identical results, a larger product grows it once, and Close
// releases it.
func TestSplitPool(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	split := firstSplit(b)
	if split == "" {
		t.Skipf("no split-K variant fits %s", b.Info().Name)
	}
	w := LinearWorkload(20, 1024, 36, true)
	p, err := w.Prepare(b)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	ref, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	b.setLinearShape(keyOf(20, 36, 1024), split)
	first, err := p.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !hasPipe(b, "linear/"+split+"/", "/split") || b.split.allocs != 1 {
		t.Fatalf("split %s: ran split %v, %d buffers created", split, hasPipe(b, "linear/"+split+"/", "/split"), b.split.allocs)
	}
	if d := relL2(first, ref); d > 1e-5 {
		t.Errorf("split differs from the reference by rel-L2 %g", d)
	}
	for i := range 3 {
		got, err := p.Output()
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			if got[j] != first[j] {
				t.Fatalf("run %d: element %d = %g, first run %g", i+2, j, got[j], first[j])
			}
		}
	}
	if b.split.allocs != 1 {
		t.Errorf("4 split Linears created %d buffers, want 1", b.split.allocs)
	}
	before := b.split.buf.bytes
	big := LinearWorkload(40, 1024, 72, true)
	q, err := big.Prepare(b)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Free()
	b.setLinearShape(keyOf(40, 72, 1024), split)
	for range 2 {
		if _, err := q.Output(); err != nil {
			t.Fatal(err)
		}
	}
	if b.split.allocs != 2 || b.split.buf.bytes <= before {
		t.Errorf("a larger product: %d buffers created (want 2), %d bytes from %d", b.split.allocs, b.split.buf.bytes, before)
	}
	p.Free()
	q.Free()
	if m := b.Memory().Resident; m != b.split.buf.sizes[0] {
		t.Errorf("resident %d with only the split buffer's %d held", m, b.split.buf.sizes[0])
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b.split.buf != nil || b.Memory().Resident != 0 {
		t.Errorf("after Close: split buffer %v, resident %d", b.split.buf, b.Memory().Resident)
	}
}

// TestShapeTimesIncumbent: a shape's tuning with no budget left after its first candidate
// still times the variant the shape runs without a record (here the deep class's), so the
// record it leaves is never slower than what ran before.
func TestShapeTimesIncumbent(t *testing.T) {
	b := openWith(t, Options{Adapter: -1})
	_, class := twoGenerated(t, b)
	b.setLinearClass(cacheLinearDeep, class)
	s := LinearShape{Name: "deep", M: 20, N: 24, K: linearDeepK}
	cands := b.Variants(FamilyLinear)
	st := ShapeTuning{Shape: s}
	if err := b.tuneShape(context.Background(), s, cands, 1, &st, func(string) {}, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Seconds[class]; !ok || len(st.Seconds) != 2 {
		t.Errorf("timed %v, want the reference and the class's %s", st.Seconds, class)
	}
	if st.Variant != cands[0] && st.Variant != class {
		t.Errorf("record %s, neither timed variant", st.Variant)
	}
	if got, n := incumbentFirst([]string{"a", "b", "c"}, "c"); n != 2 || got[0] != "a" || got[1] != "c" || got[2] != "b" || len(got) != 3 {
		t.Errorf("incumbentFirst: %v, %d", got, n)
	}
	if got, n := incumbentFirst([]string{"a", "b"}, "x"); n != 1 || len(got) != 2 {
		t.Errorf("incumbentFirst of a non-candidate: %v, %d", got, n)
	}
}

// TestTuneFailureKeepsShapes: a tuning cancelled while it times leaves the shape records it
// found in place (they are set aside while candidates run).
func TestTuneFailureKeepsShapes(t *testing.T) {
	b := openWith(t, Options{Adapter: -1, CacheDir: t.TempDir()})
	rec, _ := twoGenerated(t, b)
	key := keyOf(300, 64, 9216)
	b.setLinearShape(key, rec)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := b.Tune(ctx, TuneOptions{Workloads: map[string]Workload{FamilyLinear: LinearWorkload(9, 40, 12, true)},
		Budget: time.Minute, Reps: 1, NoSave: true, Progress: func(TuneProgress) { cancel() }})
	if err == nil {
		t.Fatal("a cancelled tuning succeeded")
	}
	if got := b.shapeRecords()[key]; got != rec {
		t.Errorf("after a failed tuning the record is %q, want %q", got, rec)
	}
}
