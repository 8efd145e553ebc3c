//go:build cgo

package webgpu

import (
	"context"
	"fmt"
	"time"
)

// Linear per shape: tuning times Linear's candidates on each of the model's shapes
// (ModelDims.Shapes) and records the winner under its key (shapeBucket of the rows, N, K)
// in the cache's Shapes. A Linear whose key has a record runs it; else the large or deep
// class's choice, else FamilyLinear's (linearVariant); a forced family overrides them all.

// linearShapeVariant is the variant a Linear of rows×k→n runs (b.mu held): the shape
// record of its key, else linearVariant's choice.
func (b *Backend) linearShapeVariant(rows, n, k int) string {
	if !b.forced[FamilyLinear] {
		if v, ok := b.linearShapes[keyOf(rows, n, k)]; ok {
			return v
		}
	}
	return b.linearVariant(rows, k)
}

// setLinearShape records v for key ("" removes the record); a variant the adapter cannot
// run is ignored.
func (b *Backend) setLinearShape(key shapeKey, v string) {
	if v != "" && !contains(b.Variants(FamilyLinear), v) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if v == "" {
		delete(b.linearShapes, key)
		return
	}
	if b.linearShapes == nil {
		b.linearShapes = map[shapeKey]string{}
	}
	b.linearShapes[key] = v
}

// applyLinearShapes replaces the shape records by c's that were tuned on these kernels.
func (b *Backend) applyLinearShapes(c *TuneCache) {
	b.mu.Lock()
	b.linearShapes = nil
	b.mu.Unlock()
	hash := SourceHash(FamilyLinear)
	for _, s := range c.Shapes {
		if s.Hash == hash {
			b.setLinearShape(shapeKey{s.M, s.N, s.K}, s.Variant)
		}
	}
}

// shapeRecords is a copy of the backend's shape records.
func (b *Backend) shapeRecords() map[shapeKey]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[shapeKey]string, len(b.linearShapes))
	for k, v := range b.linearShapes {
		out[k] = v
	}
	return out
}

// restoreShapes makes recs the backend's shape records.
func (b *Backend) restoreShapes(recs map[shapeKey]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.linearShapes = recs
}

// cachedShape is the index of key's record in c (-1: none).
func cachedShape(c *TuneCache, key shapeKey) int {
	for i, s := range c.Shapes {
		if s.M == key.m && s.N == key.n && s.K == key.k {
			return i
		}
	}
	return -1
}

// putShape sets key's record in c.
func putShape(c *TuneCache, key shapeKey, rec CachedShape) {
	rec.M, rec.N, rec.K = key.m, key.n, key.k
	if i := cachedShape(c, key); i >= 0 {
		c.Shapes[i] = rec
		return
	}
	c.Shapes = append(c.Shapes, rec)
}

// shapePlan is what Tune does per shape: the shapes, the candidates, the repetitions and
// each shape's cap on its time (0: none but the overall budget).
type shapePlan struct {
	shapes []LinearShape
	cands  []string
	reps   int
	cap    time.Duration
	force  bool
}

// planShapes is the per-shape tuning of opts at scale (nil: none): opts.Shapes, else
// Klein4BDims' shapes at opts.Sizes (DefaultShapeSizes) when tuning times the model's real
// shapes or opts.Sizes is set; none when Linear is forced or opts.Workloads are given
// without shapes.
func (b *Backend) planShapes(opts TuneOptions, scale int) *shapePlan {
	if b.Forced(FamilyLinear) {
		return nil
	}
	shapes := opts.Shapes
	if shapes == nil {
		if opts.Workloads != nil || (scale != 1 && opts.Sizes == nil) {
			return nil
		}
		sizes := opts.Sizes
		if sizes == nil {
			sizes = DefaultShapeSizes()
		}
		shapes = Klein4BDims().Shapes(sizes)
	}
	reps := opts.Reps
	if reps <= 0 {
		reps = 5
	}
	return &shapePlan{shapes: shapes, cands: b.Variants(FamilyLinear), reps: reps, cap: opts.ShapeBudget, force: opts.Force}
}

// tuneLinearShapes tunes each shape of p in turn, within an equal share of what is left of
// the overall budget (since start) and p.cap: a shape whose record in cache is current is
// applied untimed (unless p.force); one too large for the device, or whose one run at the
// device's rate would not fit its share, is skipped with a note.
func (b *Backend) tuneLinearShapes(ctx context.Context, p shapePlan, cache *TuneCache, res *TuneResult,
	progress func(string), start time.Time, budget time.Duration) error {
	hash := SourceHash(FamilyLinear)
	for i, s := range p.shapes {
		key := keyOf(s.M, s.N, s.K)
		st := ShapeTuning{Shape: s, Bucket: key.m}
		if j := cachedShape(cache, key); !p.force && j >= 0 && cache.Shapes[j].Hash == hash && contains(p.cands, cache.Shapes[j].Variant) {
			st.Variant, st.Cached, st.Seconds = cache.Shapes[j].Variant, true, cache.Shapes[j].Seconds
			b.setLinearShape(key, st.Variant)
			res.Shapes = append(res.Shapes, st)
			continue
		}
		share := (budget - time.Since(start)) / time.Duration(len(p.shapes)-i)
		if p.cap > 0 {
			share = min(share, p.cap)
		}
		if note := b.shapeSkip(s, share); note != "" {
			st.Note = note
			res.Shapes = append(res.Shapes, st)
			continue
		}
		if err := b.tuneShape(ctx, s, shapeCands(s, p.cands), p.reps, &st, progress, share); err != nil {
			return err
		}
		res.FromCache = false
		putShape(cache, key, CachedShape{Hash: hash, Variant: st.Variant, Seconds: st.Seconds})
		res.Shapes = append(res.Shapes, st)
	}
	return nil
}

// shapeCands are the candidates timed on s: split-K variants only below linearLargeRows
// rows (above, the output tiles fill the GPU; linearCandidates).
func shapeCands(s LinearShape, cands []string) []string {
	if s.M >= linearLargeRows {
		return linearCandidates(FamilyLinear, cands)
	}
	return cands
}

// shapeSkip says why shape s is not timed within share ("" to time it): no time left, an
// operand beyond one binding or the three beyond a quarter of the device's memory, or a
// warm-up and one timed run of the first candidate, at the device's measured Linear rate,
// longer than share.
func (b *Backend) shapeSkip(s LinearShape, share time.Duration) string {
	if share <= 0 {
		return "time budget spent"
	}
	x, w, y := int64(s.M)*int64(s.K)*4, int64(s.N)*int64(s.K)*2, int64(s.M)*int64(s.N)*4
	bind := int64(b.lim.MaxStorageBufferBindingSize)
	if x > bind || w > bind || y > bind || (b.info.MemoryBytes > 0 && x+w+y > b.info.MemoryBytes/4) {
		return "too large for this device"
	}
	b.mu.Lock()
	rate := b.rates.linear
	b.mu.Unlock()
	if rate > 0 && time.Duration(2*s.FLOPs()/(rate*1e9)*float64(time.Second)) > share {
		return fmt.Sprintf("a run at %.4g GFLOP/s exceeds its %v of the budget", rate, share.Round(time.Millisecond))
	}
	return ""
}

// tuneShape times cands on s (bf16 weights, as the model's), each by a record of
// its key, within share (the reference and the shape's choice without a record at least,
// incumbentFirst); checks the fastest against the reference cands[0] as
// pickVariant does and leaves the winner recorded. The key's earlier record is restored
// on error.
func (b *Backend) tuneShape(ctx context.Context, s LinearShape, cands []string, reps int, st *ShapeTuning, progress func(string), share time.Duration) (err error) {
	key := keyOf(s.M, s.N, s.K)
	b.mu.Lock()
	prev := b.linearShapes[key]
	cands, timedFirst := incumbentFirst(cands, b.linearVariant(s.M, s.K))
	b.mu.Unlock()
	defer func() {
		if err != nil {
			b.setLinearShape(key, prev)
		}
	}()
	w := LinearWorkload(s.M, s.K, s.N, true)
	prep, err := w.Prepare(b)
	if err != nil {
		return fmt.Errorf("webgpu: tuning Linear %s: %w", s.Name, err)
	}
	defer prep.Free()
	start := time.Now()
	each := share / time.Duration(max(len(cands), 1))
	st.Seconds = map[string]float64{}
	var skipped []string
	for i, v := range cands {
		if i >= timedFirst && time.Since(start) > share {
			skipped = append(skipped, v)
			continue
		}
		progress(v)
		b.setLinearShape(key, v)
		d, err := prep.Time(ctx, reps, each)
		if err != nil {
			return fmt.Errorf("webgpu: tuning Linear %s variant %s: %w", s.Name, v, err)
		}
		st.Seconds[v] = d.Seconds()
	}
	if len(skipped) > 0 {
		st.Note = fmt.Sprintf("time budget spent: %v not timed", skipped)
	}
	best := fastest(st.Seconds, cands[0])
	if best != cands[0] {
		if st.RelL2, err = b.compareShape(prep, key, cands[0], best); err != nil {
			return fmt.Errorf("webgpu: checking Linear %s: %w", s.Name, err)
		}
		if st.RelL2 > TuneTolerance {
			st.Note = fmt.Sprintf("%s rejected: rel-L2 %.2g against the reference %s", best, st.RelL2, cands[0])
			best, st.RelL2 = cands[0], 0
		}
	}
	b.setLinearShape(key, best)
	st.Variant = best
	if t := st.Seconds[best]; t > 0 {
		st.GFLOPS = s.FLOPs() / t / 1e9
	}
	return nil
}

// incumbentFirst orders cands for timing: the reference cands[0], then inc (the class's or
// family's choice, what the shape runs without a record) when it is a candidate, then the
// rest; timed is how many lead the list that are timed whatever the budget, so that a
// record never replaces inc by a variant slower than it.
func incumbentFirst(cands []string, inc string) (ordered []string, timed int) {
	if len(cands) == 0 || inc == cands[0] || !contains(cands, inc) {
		return cands, 1
	}
	ordered = append(ordered, cands[0], inc)
	for _, v := range cands[1:] {
		if v != inc {
			ordered = append(ordered, v)
		}
	}
	return ordered, 2
}

// compareShape is the rel-L2 difference of prep's output under record cand from record ref.
func (b *Backend) compareShape(prep *Prepared, key shapeKey, ref, cand string) (float64, error) {
	b.setLinearShape(key, ref)
	want, err := prep.Output()
	if err != nil {
		return 0, err
	}
	b.setLinearShape(key, cand)
	got, err := prep.Output()
	if err != nil {
		return 0, err
	}
	return relL2(got, want), nil
}
